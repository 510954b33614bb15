import { spawn } from 'node:child_process';
import {
  chmodSync,
  closeSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { goEnv, stackopsCacheDir } from '@stackops/kube-env';
import { downloadPackages, extractPackage, resolvePackages } from '@stackops/kube-env/debian';
import { statusEntry } from '../base/debian.js';
import { type BuilderOptions, type BuiltImage, withImageBuilder } from '../image-builder.js';
import { repoRoot } from '../source.js';
import { exec } from '../util/exec.js';
import { sha256Hex } from '../util/hash.js';
import { treeDigest, WORKLOADS_EPOCH } from '../workloads/layers.js';

/**
 * The network add-on images built here: the components network-addons-operator deploys whose Go
 * modules the module proxy serves at the versions cluster-network-addons-operator v0.102.0 pins,
 * our own bridge-marker (its module is refused), and whereabouts (an IPAM plugin a user installs;
 * the seeds' NetworkAttachmentDefinition uses it).
 */
export const networkImageNames = ['multus', 'linuxBridge', 'bridgeMarker', 'ovsCni', 'whereabouts'] as const;
export type NetworkImageName = (typeof networkImageNames)[number];

interface GoBuild {
  /** The Go module and its version (a wrapper module requires it, as kube-env builds etcd). */
  module?: { path: string; version: string };
  /** Binary name → package (full import path, or `.` for a source folder of this repository). */
  binaries: Record<string, string>;
  /** A folder of this repository holding a main package of our own (bridge-marker). */
  source?: string;
  /** Build tags, as the upstream image's build passes them. */
  tags?: string[];
}

interface NetworkImageDefinition {
  /** The image the operator names by default, which this one stands in for. */
  replaces: string;
  /** network-addons-operator's variable that picks it (none for whereabouts: a test fixture). */
  env?: string;
  repository: string;
  version: string;
  go: GoBuild;
  /** Where the binaries go in the image (the path the operator's DaemonSet runs them from). */
  binDir: string;
  /** Files of tools/images/network/<folder> copied to the image root (scripts). */
  files?: string;
  /** Debian bash-static as /bin/bash (the linux-bridge DaemonSet runs `/bin/bash -ce`). */
  bash?: boolean;
  entrypoint?: string[];
  user?: string;
  description: string;
}

const PLUGINS = 'github.com/containernetworking/plugins';
const MULTUS = 'gopkg.in/k8snetworkplumbingwg/multus-cni.v4';
const WHEREABOUTS = 'github.com/k8snetworkplumbingwg/whereabouts';
const OVS_CNI = 'github.com/k8snetworkplumbingwg/ovs-cni';

/** Every Linux plugin of containernetworking/plugins: what the cni-default-plugins image carries. */
const pluginPackages = [
  'main/bridge',
  'main/dummy',
  'main/host-device',
  'main/ipvlan',
  'main/loopback',
  'main/macvlan',
  'main/ptp',
  'main/tap',
  'main/vlan',
  'ipam/dhcp',
  'ipam/host-local',
  'ipam/static',
  'meta/bandwidth',
  'meta/firewall',
  'meta/portmap',
  'meta/sbr',
  'meta/tuning',
  'meta/vrf',
];

export const networkImages: Record<NetworkImageName, NetworkImageDefinition> = {
  // Thick plugin: the DaemonSet runs install_multus (which copies multus-shim and passthru) and
  // multus-daemon from /usr/src/multus-cni/bin, and `/bin/sh -c rm …` in its preStop hook.
  multus: {
    replaces: 'ghcr.io/k8snetworkplumbingwg/multus-cni (thick)',
    env: 'MULTUS_IMAGE',
    repository: 'multus-cni',
    version: 'v4.2.4',
    go: {
      module: { path: MULTUS, version: 'v4.2.4' },
      binaries: {
        'multus-daemon': `${MULTUS}/cmd/multus-daemon`,
        'multus-shim': `${MULTUS}/cmd/multus-shim`,
        install_multus: `${MULTUS}/cmd/install_multus`,
        passthru: `${MULTUS}/cmd/passthru-cni`,
      },
    },
    binDir: '/usr/src/multus-cni/bin',
    entrypoint: ['/usr/src/multus-cni/bin/multus-daemon'],
    description: 'Multus thick plugin (multus-daemon, multus-shim, install_multus, passthru)',
  },
  linuxBridge: {
    replaces: 'quay.io/kubevirt/cni-default-plugins',
    env: 'LINUX_BRIDGE_IMAGE',
    repository: 'cni-default-plugins',
    version: 'v1.5.1',
    go: {
      module: { path: PLUGINS, version: 'v1.5.1' },
      binaries: Object.fromEntries(pluginPackages.map((p) => [p.split('/')[1]!, `${PLUGINS}/plugins/${p}`])),
    },
    binDir: '/usr/src/github.com/containernetworking/plugins/bin',
    bash: true,
    description: 'the CNI reference plugins (bridge, tuning, host-local, macvlan, …)',
  },
  bridgeMarker: {
    replaces: 'quay.io/kubevirt/bridge-marker',
    env: 'LINUX_BRIDGE_MARKER_IMAGE',
    repository: 'bridge-marker',
    version: '0.1.0',
    go: { source: 'bridge-marker', binaries: { 'bridge-marker': '.' } },
    binDir: '/usr/bin',
    entrypoint: ['/usr/bin/bridge-marker'],
    user: '1001:1001',
    description:
      "stackops' bridge-marker: the node's Linux bridges as bridge.network.kubevirt.io/<name> resources",
  },
  // The DaemonSet's init container runs `/bin/sh -c cp /ovs /ovs-mirror-producer
  // /ovs-mirror-consumer …`, its container `/marker`, and the liveness probe `sh -c find … | grep`.
  ovsCni: {
    replaces: 'ghcr.io/k8snetworkplumbingwg/ovs-cni-plugin',
    env: 'OVS_CNI_IMAGE',
    repository: 'ovs-cni-plugin',
    version: 'v0.39.0',
    go: {
      module: { path: OVS_CNI, version: 'v0.39.0' },
      binaries: {
        ovs: `${OVS_CNI}/cmd/plugin`,
        marker: `${OVS_CNI}/cmd/marker`,
        'ovs-mirror-producer': `${OVS_CNI}/cmd/mirror-producer`,
        'ovs-mirror-consumer': `${OVS_CNI}/cmd/mirror-consumer`,
      },
      tags: ['no_openssl'],
    },
    binDir: '/',
    entrypoint: ['/marker'],
    description: 'the Open vSwitch CNI plugin (ovs, ovs-mirror-producer, ovs-mirror-consumer) and its marker',
  },
  whereabouts: {
    replaces: 'ghcr.io/k8snetworkplumbingwg/whereabouts',
    repository: 'whereabouts',
    version: 'v0.9.2',
    go: { module: { path: WHEREABOUTS, version: 'v0.9.2' }, binaries: { whereabouts: `${WHEREABOUTS}/cmd` } },
    binDir: '/',
    files: 'whereabouts',
    entrypoint: ['/install-cni.sh'],
    description: 'the whereabouts IPAM plugin and an installer writing its binary and kubeconfig on the node',
  },
};

/** Bumped when the way the binaries are built changes. */
const RECIPE = 1;
/** Bumped when the shared bottom layer's recipe changes. */
const BASE_RECIPE = 2;

function networkImagesCacheDir(): string {
  return join(stackopsCacheDir(), 'images', 'network');
}

function networkDir(): string {
  return join(repoRoot(), 'tools', 'images', 'network');
}

/** Runs a program with its output appended to `log`; a failure quotes the log's end. */
function run(argv: readonly string[], cwd: string, log: string): Promise<void> {
  const [program, ...args] = argv;
  const fd = openSync(log, 'a');
  return new Promise<void>((resolve, reject) => {
    const child = spawn(program!, args, { cwd, env: goEnv(), stdio: ['ignore', fd, fd] });
    closeSync(fd);
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) return resolve();
      const tail = readFileSync(log, 'utf8').trimEnd().split('\n').slice(-30).join('\n');
      reject(new Error(`${argv.join(' ')} exited with ${code} (log: ${log})\n${tail}`));
    });
  });
}

/**
 * Static, stripped binaries of one image, built once per key (module, version, packages, our
 * source, Go version) into the cache: `-trimpath` and an empty build id make them the same bytes
 * on every build with the same Go.
 */
async function buildBinaries(
  name: NetworkImageName,
  def: NetworkImageDefinition,
  goVersion: string,
  cacheDir: string,
  progress: (line: string) => void,
): Promise<string> {
  const sourceDir = def.go.source ? join(networkDir(), def.go.source) : undefined;
  const key = sha256Hex(
    JSON.stringify({ RECIPE, goVersion, go: def.go, source: sourceDir && treeDigest(sourceDir) }),
  ).slice(0, 16);
  const dir = join(cacheDir, `${def.repository}-${def.version}-${key}`);
  const bin = join(dir, 'bin');
  if (existsSync(bin)) return bin;
  const work = `${dir}.work`;
  rmSync(work, { recursive: true, force: true });
  mkdirSync(join(work, 'bin'), { recursive: true });
  const log = join(work, 'build.log');
  const started = Date.now();
  progress(`images: building ${name} ${def.version} from Go modules (log: ${log})`);
  if (sourceDir) {
    copyFileSync(join(sourceDir, 'main.go'), join(work, 'main.go'));
    writeFileSync(join(work, 'go.mod'), `module stackops.dev/${def.repository}\n\ngo 1.24\n`);
  } else {
    const { path, version } = def.go.module!;
    writeFileSync(join(work, 'go.mod'), `module stackops.dev/${def.repository}-build\n\ngo 1.24\n`);
    await run(['go', 'get', `${path}@${version}`], work, log);
  }
  for (const [binary, pkg] of Object.entries(def.go.binaries)) {
    await run(
      [
        'go',
        'build',
        '-trimpath',
        ...(def.go.tags ? [`-tags=${def.go.tags.join(',')}`] : []),
        '-ldflags=-s -w -buildid=',
        '-o',
        join(work, 'bin', binary),
        pkg,
      ],
      work,
      log,
    );
  }
  renameSync(join(work, 'bin'), join(work, 'out'));
  mkdirSync(dir, { recursive: true });
  renameSync(join(work, 'out'), bin);
  renameSync(log, join(dir, 'build.log'));
  rmSync(work, { recursive: true, force: true });
  progress(`images: ${name} binaries built in ${Math.round((Date.now() - started) / 1000)} s`);
  return bin;
}

/**
 * The shared bottom layer: Debian's busybox-static (the shell and tools the DaemonSets' scripts
 * call: sh, cp, ln, rm, sleep; ip and ping for tests), bash-static as /bin/bash, `/etc/passwd`
 * (multus-daemon looks up its user), `/var/run` → `/run`, and the packages' dpkg status entries.
 */
async function baseLayer(cacheDir: string, progress: (line: string) => void): Promise<string> {
  const packages = await resolvePackages(['busybox-static', 'bash-static'], 'amd64', progress);
  const key = sha256Hex(JSON.stringify({ BASE_RECIPE, packages })).slice(0, 16);
  const root = join(cacheDir, `base-${key}`);
  if (existsSync(root)) return root;
  const debs = await downloadPackages(packages, join(cacheDir, 'debs'), progress);
  const work = `${root}.work`;
  const extracted = `${root}.debs`;
  rmSync(work, { recursive: true, force: true });
  rmSync(extracted, { recursive: true, force: true });
  for (const deb of debs) await extractPackage(deb.deb!, join(extracted, deb.name));
  const busybox = join(extracted, 'busybox-static', 'bin', 'busybox');
  for (const d of ['bin', 'etc', 'tmp', 'var/lib/dpkg/status.d', 'usr/share/doc']) {
    mkdirSync(join(work, d), { recursive: true });
  }
  chmodSync(join(work, 'tmp'), 0o1777);
  // Paths under /var/run (multus looks for pod network namespaces in /var/run/netns) are /run's.
  symlinkSync('../run', join(work, 'var', 'run'));
  mkdirSync(join(work, 'run'));
  copyFileSync(busybox, join(work, 'bin', 'busybox'));
  chmodSync(join(work, 'bin', 'busybox'), 0o755);
  const applets = (await exec([busybox, '--list'])).split('\n').filter((a) => /^[\w.[-]+$/.test(a));
  for (const applet of applets) {
    if (applet === 'busybox') continue;
    symlinkSync('busybox', join(work, 'bin', applet));
  }
  copyFileSync(join(extracted, 'bash-static', 'bin', 'bash-static'), join(work, 'bin', 'bash'));
  chmodSync(join(work, 'bin', 'bash'), 0o755);
  writeFileSync(
    join(work, 'etc', 'passwd'),
    'root:x:0:0:root:/root:/bin/sh\nmarker:x:1001:1001:bridge-marker:/tmp:/bin/false\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n',
  );
  writeFileSync(join(work, 'etc', 'group'), 'root:x:0:\nmarker:x:1001:\nnogroup:x:65534:\n');
  for (const deb of debs) {
    writeFileSync(join(work, 'var/lib/dpkg/status.d', deb.name), await statusEntry(deb.deb!));
    const copyright = join(extracted, deb.name, 'usr/share/doc', deb.name, 'copyright');
    if (existsSync(copyright)) {
      mkdirSync(join(work, 'usr/share/doc', deb.name), { recursive: true });
      copyFileSync(copyright, join(work, 'usr/share/doc', deb.name, 'copyright'));
    }
  }
  rmSync(extracted, { recursive: true, force: true });
  renameSync(work, root);
  return root;
}

/** The component layer: the binaries at the contract's folder, and the image's scripts. */
function componentLayer(def: NetworkImageDefinition, bin: string, cacheDir: string): string {
  const filesDir = def.files ? join(networkDir(), def.files) : undefined;
  const key = sha256Hex(
    JSON.stringify({ RECIPE, bin, binDir: def.binDir, files: filesDir && treeDigest(filesDir) }),
  ).slice(0, 16);
  const root = join(cacheDir, `${def.repository}-layer-${key}`);
  if (existsSync(root)) return root;
  const work = `${root}.work`;
  rmSync(work, { recursive: true, force: true });
  const target = join(work, def.binDir);
  mkdirSync(target, { recursive: true });
  for (const binary of Object.keys(def.go.binaries)) {
    copyFileSync(join(bin, binary), join(target, binary));
    chmodSync(join(target, binary), 0o755);
  }
  if (filesDir) {
    for (const file of ['install-cni.sh']) {
      const dest = join(work, file);
      mkdirSync(dirname(dest), { recursive: true });
      copyFileSync(join(filesDir, file), dest);
      chmodSync(dest, 0o755);
    }
  }
  renameSync(work, root);
  return root;
}

export interface NetworkImage {
  image: NetworkImageName;
  /** e.g. `localhost/stackops/multus-cni:v4.2.4`. */
  name: string;
  replaces: string;
  env?: string;
  built: BuiltImage;
}

export interface NetworkImageOptions {
  /** Build only these (default: all). */
  only?: readonly NetworkImageName[];
  cacheDir?: string;
  images?: BuilderOptions;
  progress?: (line: string) => void;
}

/**
 * Builds the network add-on images (binaries and layers from the cache when their inputs are
 * unchanged). Needs Go (the module proxy) and apt (busybox-static, bash-static); not root.
 */
export async function buildNetworkImages(
  options: NetworkImageOptions = {},
): Promise<Partial<Record<NetworkImageName, NetworkImage>>> {
  const names = networkImageNames.filter((n) => !options.only || options.only.includes(n));
  const progress = options.progress ?? ((line: string) => process.stderr.write(`${line}\n`));
  const cacheDir = options.cacheDir ?? networkImagesCacheDir();
  mkdirSync(cacheDir, { recursive: true });
  const goVersion = (await exec(['go', 'env', 'GOVERSION'], { env: goEnv() })).trim();
  const base = await baseLayer(cacheDir, progress);
  const layers = {} as Record<NetworkImageName, string>;
  for (const name of names) {
    const def = networkImages[name];
    const bin = await buildBinaries(name, def, goVersion, cacheDir, progress);
    layers[name] = componentLayer(def, bin, cacheDir);
  }
  const result: Partial<Record<NetworkImageName, NetworkImage>> = {};
  await withImageBuilder(
    {
      source: {
        epoch: WORKLOADS_EPOCH,
        revision: sha256Hex(base).slice(0, 40),
      },
      progress,
      ...options.images,
    },
    async (builder) => {
      for (const name of names) {
        const def = networkImages[name];
        const imageName = `localhost/stackops/${def.repository}:${def.version}`;
        const built = await builder.build({
          name: imageName,
          layers: [
            { dir: base, description: 'stackops network images: busybox-static, bash-static' },
            { dir: layers[name], description: `stackops network images: ${def.repository} ${def.version}` },
          ],
          config: {
            ...(def.entrypoint ? { entrypoint: def.entrypoint } : {}),
            ...(def.user ? { user: def.user } : {}),
            env: { PATH: '/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin' },
            labels: {
              'org.opencontainers.image.title': def.repository,
              'org.opencontainers.image.version': def.version,
              'org.opencontainers.image.description': `Stand-in for ${def.replaces}, built from Go modules for stackops' tests and demo: ${def.description}`,
              'org.opencontainers.image.source':
                'https://github.com/stackops/stackops/tree/main/tools/images/network',
              'org.opencontainers.image.licenses': 'Apache-2.0',
            },
          },
        });
        result[name] = {
          image: name,
          name: imageName,
          replaces: def.replaces,
          ...(def.env ? { env: def.env } : {}),
          built,
        };
      }
    },
  );
  return result;
}
