import {
  type BuilderOptions,
  type BuiltImage,
  type ImageConfig,
  withImageBuilder,
} from '../image-builder.js';
import { sha256Hex } from '../util/hash.js';
import { type BuildOptions, type BuiltLayer, buildWorkloadLayers } from './build.js';
import { type LayerName, WORKLOADS_EPOCH } from './layers.js';

/** The stand-in workload images: what each one replaces, and how it is stacked. */
export const workloadImageNames = [
  'keystone',
  'placement',
  'mariadb',
  'openstackclient',
  'haproxy',
  'jumphost',
  'sushy',
] as const;
export type WorkloadImageName = (typeof workloadImageNames)[number];

export interface WorkloadImageDefinition {
  /** The image the operators (or upstream tooling) name by default, which this one stands in for. */
  replaces: string;
  /** The operators' variable that picks the image (none for openstackclient: tests and the demo use it). */
  env: readonly string[];
  layers: readonly LayerName[];
  config: ImageConfig;
  /** What the tag is: the version of the software the image exists for. */
  version: (layers: Record<LayerName, BuiltLayer>) => string;
}

const PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
const REPOSITORY = 'localhost/stackops';

function wheelOf(layer: BuiltLayer, name: string): string {
  const found = Object.entries(layer.wheels).find(([n]) => n.toLowerCase().replaceAll('_', '-') === name);
  if (!found) throw new Error(`the ${layer.name} layer has no ${name}`);
  return found[1];
}

const wheel = (layers: Record<LayerName, BuiltLayer>, name: string): string => wheelOf(layers.python, name);

/** Debian's version without epoch and Debian revision: `1:10.11.19-0+deb12u1` → `10.11.19`. */
function upstreamVersion(debian: string | undefined, what: string): string {
  if (!debian) throw new Error(`no Debian package ${what} in the layers`);
  return debian.replace(/^\d+:/, '').replace(/-[^-]*$/, '');
}

const labels = (title: string, replaces: string, description: string) => ({
  'org.opencontainers.image.title': title,
  'org.opencontainers.image.description': `Stand-in for ${replaces}, built to the same contract for stackops' tests and demo: ${description}`,
  'org.opencontainers.image.source': 'https://github.com/stackops/stackops/tree/main/tools/images/workloads',
  'org.opencontainers.image.licenses': 'Apache-2.0',
});

/**
 * The TCIB service images start as root (the operators set the user), run under dumb-init, and
 * start with kolla_start. openstackclient and mariadb carry their TCIB users.
 */
export const workloadImages: Record<WorkloadImageName, WorkloadImageDefinition> = {
  keystone: {
    replaces: 'quay.io/podified-antelope-centos9/openstack-keystone:current-podified',
    env: ['RELATED_IMAGE_KEYSTONE_API_IMAGE_URL_DEFAULT'],
    layers: ['base', 'httpd', 'python', 'keystone'],
    version: (l) => wheel(l, 'keystone'),
    config: {
      entrypoint: ['dumb-init', '--single-child', '--'],
      cmd: ['kolla_start'],
      env: { PATH, LANG: 'C.UTF-8', container: 'oci' },
      exposedPorts: ['5000/tcp'],
      labels: labels(
        'openstack-keystone',
        'quay.io/podified-antelope-centos9/openstack-keystone',
        'Keystone on httpd + mod_wsgi, keystone-manage, kolla_start',
      ),
    },
  },
  placement: {
    replaces: 'quay.io/podified-antelope-centos9/openstack-placement-api:current-podified',
    env: ['RELATED_IMAGE_PLACEMENT_API_IMAGE_URL_DEFAULT'],
    layers: ['base', 'httpd', 'python', 'placement'],
    version: (l) => wheel(l, 'openstack-placement'),
    config: {
      entrypoint: ['dumb-init', '--single-child', '--'],
      cmd: ['kolla_start'],
      env: { PATH, LANG: 'C.UTF-8', container: 'oci' },
      exposedPorts: ['8778/tcp'],
      labels: labels(
        'openstack-placement-api',
        'quay.io/podified-antelope-centos9/openstack-placement-api',
        'Placement on httpd + mod_wsgi, placement-manage, kolla_start',
      ),
    },
  },
  mariadb: {
    replaces: 'quay.io/podified-antelope-centos9/openstack-mariadb:current-podified',
    env: ['RELATED_IMAGE_MARIADB_IMAGE_URL_DEFAULT'],
    layers: ['base', 'mariadb'],
    version: (l) => upstreamVersion(l.mariadb.debs['mariadb-server'], 'mariadb-server'),
    config: {
      entrypoint: ['dumb-init', '--'],
      cmd: ['/usr/local/bin/mariadb-standalone'],
      user: '42434:42434',
      env: { PATH, LANG: 'C.UTF-8', container: 'oci' },
      exposedPorts: ['3306/tcp'],
      labels: labels(
        'openstack-mariadb',
        'quay.io/podified-antelope-centos9/openstack-mariadb',
        'a standalone MariaDB server (DB_ROOT_PASSWORD) and the mariadb client of the db-create Jobs',
      ),
    },
  },
  openstackclient: {
    replaces: 'quay.io/podified-antelope-centos9/openstack-openstackclient:current-podified',
    env: [],
    layers: ['base', 'python', 'openstackclient'],
    version: (l) => wheel(l, 'python-openstackclient'),
    config: {
      entrypoint: ['dumb-init', '--single-child', '--'],
      cmd: ['/bin/bash'],
      user: '42401:42401',
      workdir: '/home/cloud-admin',
      env: { PATH, LANG: 'C.UTF-8', container: 'oci', HOME: '/home/cloud-admin' },
      labels: labels(
        'openstack-openstackclient',
        'quay.io/podified-antelope-centos9/openstack-openstackclient',
        'the openstack CLI (python-openstackclient, osc-placement) for cloud-admin',
      ),
    },
  },
  // The official image runs `haproxy -W -db -f /usr/local/etc/haproxy/haproxy.cfg` as root; SIP sets no command.
  haproxy: {
    replaces: 'haproxy:2.3.2',
    env: ['RELATED_IMAGE_HAPROXY'],
    layers: ['base', 'haproxy'],
    version: (l) => upstreamVersion(l.haproxy.debs['haproxy'], 'haproxy'),
    config: {
      entrypoint: ['haproxy', '-W', '-db'],
      cmd: ['-f', '/usr/local/etc/haproxy/haproxy.cfg'],
      env: { PATH, LANG: 'C.UTF-8' },
      labels: labels(
        'haproxy',
        'haproxy:2.3.2',
        'HAProxy reading /usr/local/etc/haproxy/haproxy.cfg, as the official image',
      ),
    },
  },
  jumphost: {
    replaces: 'quay.io/airshipit/jump-host:latest',
    env: ['RELATED_IMAGE_JUMP_HOST'],
    layers: ['base', 'jumphost'],
    version: (l) => upstreamVersion(l.jumphost.debs['openssh-server'], 'openssh-server'),
    config: {
      cmd: ['/usr/local/bin/jump-host-start'],
      // SIP mounts its `host` utility in /opt/sip/bin
      env: { PATH: `${PATH}:/opt/sip/bin`, LANG: 'C.UTF-8' },
      exposedPorts: ['22/tcp'],
      labels: labels(
        'jump-host',
        'quay.io/airshipit/jump-host',
        'sshd (host keys made at start) for user ubuntu (1000), ssh, jq, ipmitool, redfishtool',
      ),
    },
  },
  // Not an image SIP names: the tests' Redfish BMC (sushy-tools' emulator).
  sushy: {
    replaces: 'a Redfish BMC',
    env: [],
    layers: ['base', 'sushy'],
    version: (l) => wheelOf(l.sushy, 'sushy-tools'),
    config: {
      entrypoint: ['sushy-emulator'],
      env: { PATH, LANG: 'C.UTF-8' },
      labels: labels('sushy-tools', 'a Redfish BMC', "sushy-tools' Redfish emulator (sushy-emulator)"),
    },
  },
};

export interface WorkloadImage {
  image: WorkloadImageName;
  /** e.g. `localhost/stackops/openstack-keystone:30.0.0`. */
  name: string;
  replaces: string;
  env: readonly string[];
  /** The layer trees, bottom first (lower directories for a chroot of the image). */
  trees: string[];
  /** The image's software versions, for printing. */
  versions: Record<string, string>;
  built: BuiltImage;
}

export interface WorkloadImages {
  layers: Record<LayerName, BuiltLayer>;
  images: Record<WorkloadImageName, WorkloadImage>;
}

/** What each image runs, by package: printed after a build. */
function versions(image: WorkloadImageName, l: Record<LayerName, BuiltLayer>): Record<string, string> {
  const debs = { ...l.base.debs, ...l.httpd.debs, ...l.mariadb.debs };
  const common = { debian: `bookworm (python3 ${upstreamVersion(l.base.debs['python3.11'], 'python3.11')})` };
  switch (image) {
    case 'keystone':
    case 'placement':
      return {
        ...common,
        [image === 'keystone' ? 'keystone' : 'openstack-placement']: workloadImages[image].version(l),
        httpd: upstreamVersion(debs['apache2-bin'], 'apache2-bin'),
        mod_wsgi: upstreamVersion(debs['libapache2-mod-wsgi-py3'], 'libapache2-mod-wsgi-py3'),
      };
    case 'mariadb':
      return { ...common, mariadb: workloadImages.mariadb.version(l) };
    case 'openstackclient':
      return {
        ...common,
        'python-openstackclient': workloadImages.openstackclient.version(l),
        'osc-placement': wheel(l, 'osc-placement'),
      };
    case 'haproxy':
      return { ...common, haproxy: workloadImages.haproxy.version(l) };
    case 'jumphost':
      return {
        ...common,
        openssh: workloadImages.jumphost.version(l),
        redfishtool: wheelOf(l.jumphost, 'redfishtool'),
        ipmitool: upstreamVersion(l.jumphost.debs['ipmitool'], 'ipmitool'),
        jq: upstreamVersion(l.jumphost.debs['jq'], 'jq'),
      };
    case 'sushy':
      return { ...common, 'sushy-tools': workloadImages.sushy.version(l) };
  }
}

/**
 * Builds the four stand-in images (layers from the cache when their recipes are unchanged) with
 * the package's image builder, sharing the common layers. Needs root (see buildWorkloadLayers).
 */
export async function buildWorkloadImages(
  options: BuildOptions & { images?: BuilderOptions } = {},
): Promise<WorkloadImages> {
  const built = await buildWorkloadLayers(options);
  const images = {} as Record<WorkloadImageName, WorkloadImage>;
  await withImageBuilder(
    {
      // A constant time and the layers' keys as revision: the images change only when their layers do.
      source: {
        epoch: WORKLOADS_EPOCH,
        revision: sha256Hex(
          Object.values(built)
            .map((l) => l.key)
            .join('\n'),
        ).slice(0, 40),
      },
      ...(options.progress ? { progress: options.progress } : {}),
      ...options.images,
    },
    async (builder) => {
      for (const image of workloadImageNames) {
        const def = workloadImages[image];
        const name = `${REPOSITORY}/${def.config.labels?.['org.opencontainers.image.title']}:${def.version(built)}`;
        const result = await builder.build({
          name,
          layers: def.layers.map((l) => ({
            tar: built[l].tar,
            description: `stackops workloads: ${l} layer`,
          })),
          config: {
            ...def.config,
            labels: { ...def.config.labels, 'org.opencontainers.image.version': def.version(built) },
          },
        });
        images[image] = {
          image,
          name,
          replaces: def.replaces,
          env: def.env,
          trees: def.layers.map((l) => built[l].tree),
          versions: versions(image, built),
          built: result,
        };
      }
    },
  );
  return { layers: built, images };
}
