import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { downloadPackages, extractPackage, resolvePackages } from '../build/debian.js';
import { kubeEnvRoot } from '../paths.js';
import { run } from '../util/run.js';
import type { NodeLayout } from './layout.js';
import { inNode } from './namespace.js';
import type { RealNodeSpec } from './network.js';
import { joinNodesOnSegment } from './node-links.js';

/**
 * Open vSwitch on the real nodes (`ovs: true` / `--ovs`), as a host that network-addons' ovs-cni
 * expects runs it: ovsdb-server and ovs-vswitchd in the node's mount and network namespaces, their
 * sockets in the node's own /run/openvswitch (the DaemonSet's hostPath /var/run/openvswitch), and
 * a bridge `br1` (the name CNAO's examples use). This kernel has no openvswitch module, so the
 * bridge uses OVS's userspace datapath (`datapath_type=netdev`, which needs /dev/net/tun).
 *
 * Each node's br1 has a port `ovs-uplink`, a veth whose other end is a port of the Linux bridge
 * `kenvovs` in the first node's namespace: one layer-2 segment joining the nodes' OVS bridges (a
 * Linux bridge without VLAN filtering forwards tagged frames as they are, so OVS's VLAN tags cross
 * nodes), linked to nothing outside kube-env's namespaces and carrying no address.
 */
export const ovsNetwork = {
  bridge: 'br1',
  uplink: 'ovs-uplink',
  segment: 'kenvovs',
} as const;

/**
 * Debian's packages, extracted rather than installed: the daemons and tools, and the shared
 * libraries they link that a Debian host may lack (libxdp1 was missing here); libc and its
 * companions come from the host.
 */
const ovsPackages = [
  'openvswitch-switch',
  'openvswitch-common',
  'libxdp1',
  'libbpf1',
  'libnuma1',
  'libunbound8',
  'libcap-ng0',
] as const;

/** The extracted packages of one version set. */
export interface OvsInstall {
  root: string;
  version: string;
  /** LD_LIBRARY_PATH for the extracted libraries. */
  libraryPath: string;
}

const binaries = ['usr/sbin/ovsdb-server', 'usr/lib/openvswitch-switch/ovs-vswitchd', 'usr/bin/ovs-vsctl'];

function libraryPath(root: string): string {
  return [join(root, 'usr/lib/x86_64-linux-gnu'), join(root, 'lib/x86_64-linux-gnu')].join(':');
}

/**
 * The candidate versions of the machine's apt lists, downloaded (sha256-checked) and extracted once
 * into kube-env's cache, keyed by the packages' versions; then every binary's libraries are
 * checked, so a missing one is named at `up` rather than as a daemon that does not start.
 */
export async function ensureOvs(progress: (line: string) => void): Promise<OvsInstall> {
  const packages = await resolvePackages(ovsPackages, 'amd64', progress);
  const version = packages[0]?.version ?? '';
  const key = packages.map((p) => `${p.name}_${p.version}`).join('+');
  const cache = join(kubeEnvRoot(), 'ovs');
  const digest = createHash('sha256').update(key).digest('hex').slice(0, 12);
  const root = join(cache, `${version.replaceAll(':', '%3a')}-${digest}`);
  const install = { root, version, libraryPath: libraryPath(root) };
  if (existsSync(join(root, '.complete'))) return install;
  progress(`  extracting Open vSwitch ${version} from Debian's packages into ${root}`);
  const debs = await downloadPackages(packages, join(cache, 'debs'), progress);
  // Extracted beside, then renamed whole: a concurrent `up` either finds it complete or not at all.
  const work = `${root}.work-${process.pid}`;
  rmSync(work, { recursive: true, force: true });
  for (const deb of debs) await extractPackage(deb.deb ?? '', work);
  for (const binary of binaries) {
    const { stdout } = await run(['ldd', join(work, binary)], {
      env: { ...process.env, LD_LIBRARY_PATH: libraryPath(work) },
    });
    const missing = stdout.split('\n').filter((l) => l.includes('not found'));
    if (missing.length > 0)
      throw new Error(`Open vSwitch's ${binary} needs libraries this machine lacks:\n${missing.join('\n')}`);
  }
  writeFileSync(join(work, '.complete'), `${key}\n`);
  try {
    renameSync(work, root);
  } catch (error) {
    rmSync(work, { recursive: true, force: true });
    if (!existsSync(join(root, '.complete'))) throw error;
  }
  return install;
}

/** Where a node's OVS keeps its database (inside the node's folder) and what it runs as. */
function ovsPaths(layout: NodeLayout, install: OvsInstall, logDir: string, index: number) {
  const etc = join(layout.hostRoot, 'etc', 'openvswitch');
  return {
    database: join(etc, 'conf.db'),
    schema: join(install.root, 'usr/share/openvswitch/vswitch.ovsschema'),
    // The node's /run is its own (see namespace.ts): this is <hostRoot>/run/openvswitch outside.
    runDir: '/run/openvswitch',
    logs: {
      ovsdb: join(logDir, `ovsdb-server-${index}.log`),
      vswitchd: join(logDir, `ovs-vswitchd-${index}.log`),
    },
    env: {
      ...process.env,
      LD_LIBRARY_PATH: install.libraryPath,
      OVS_RUNDIR: '/run/openvswitch',
      OVS_DBDIR: etc,
      OVS_SYSCONFDIR: join(layout.hostRoot, 'etc'),
      OVS_PKGDATADIR: join(install.root, 'usr/share/openvswitch'),
      OVS_BINDIR: join(install.root, 'usr/bin'),
      OVS_LOGDIR: logDir,
    },
  };
}

/**
 * Starts a node's ovsdb-server and ovs-vswitchd (each detaches once it is ready, as on a host's
 * init), in the node's daemons cgroup so that teardown kills them with containerd before the
 * node's mounts go, then creates br1 with its uplink.
 */
export async function startNodeOvs(
  spec: RealNodeSpec,
  layout: NodeLayout,
  install: OvsInstall,
  daemonCgroups: readonly string[],
  logDir: string,
): Promise<void> {
  const paths = ovsPaths(layout, install, logDir, spec.index);
  const node = { netnsPath: `/run/netns/${spec.netns}`, mountNamespace: layout.mountNamespace };
  const bin = (path: string) => join(install.root, path);
  // The shell joins the cgroups first, so the daemons it starts (and their forks) are in them.
  const inCgroups = (command: readonly string[]) => [
    'sh',
    '-c',
    'for f in $KUBE_ENV_CGROUPS; do echo $$ > "$f"; done; exec "$@"',
    'sh',
    ...inNode(node, command),
  ];
  const exec = (command: readonly string[]) =>
    run(inCgroups(command), { env: { ...paths.env, KUBE_ENV_CGROUPS: daemonCgroups.join(' ') } });
  const vsctl = (...args: string[]) => exec([bin('usr/bin/ovs-vsctl'), '--timeout=30', ...args]);

  mkdirSync(join(layout.hostRoot, 'etc', 'openvswitch'), { recursive: true });
  mkdirSync(join(layout.hostRoot, 'run', 'openvswitch'), { recursive: true });
  rmSync(paths.database, { force: true });
  await run([bin('usr/bin/ovsdb-tool'), 'create', paths.database, paths.schema], { env: paths.env });
  await exec([
    bin('usr/sbin/ovsdb-server'),
    paths.database,
    `--remote=punix:${paths.runDir}/db.sock`,
    '--remote=db:Open_vSwitch,Open_vSwitch,manager_options',
    `--pidfile=${paths.runDir}/ovsdb-server.pid`,
    `--log-file=${paths.logs.ovsdb}`,
    '--no-chdir',
    '--detach',
  ]);
  await vsctl('--no-wait', 'init', '--', 'set', 'Open_vSwitch', '.', `external-ids:hostname=${spec.name}`);
  await exec([
    bin('usr/lib/openvswitch-switch/ovs-vswitchd'),
    `unix:${paths.runDir}/db.sock`,
    `--pidfile=${paths.runDir}/ovs-vswitchd.pid`,
    `--log-file=${paths.logs.vswitchd}`,
    '--no-chdir',
    '--detach',
  ]);
  await vsctl(
    '--may-exist',
    'add-br',
    ovsNetwork.bridge,
    '--',
    'set',
    'bridge',
    ovsNetwork.bridge,
    'datapath_type=netdev',
    '--',
    '--may-exist',
    'add-port',
    ovsNetwork.bridge,
    ovsNetwork.uplink,
  );
}

/** The Linux bridge `kenvovs` in the first node's namespace and each node's veth onto it. */
export function configureOvsLinks(nodes: readonly RealNodeSpec[]): Promise<void> {
  return joinNodesOnSegment(nodes, {
    bridge: ovsNetwork.segment,
    portPrefix: 'kovs',
    link: ovsNetwork.uplink,
  });
}
