import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { run } from '../util/run.js';
import { type NodeLayout, namespacePinDir, nodeHostPath, nodeHostPaths } from './layout.js';
import { realNodeNetwork as net, netnsPath, type RealNodeSpec } from './network.js';
import { mountPoints } from './teardown.js';

/** Runs a command inside the node's network namespace (nsenter, not `ip netns exec`: that remounts /sys). */
export function inNetns(cluster: string, command: readonly string[]): string[] {
  return ['nsenter', `--net=${netnsPath(cluster)}`, '--', ...command];
}

/**
 * Runs a command inside a node's mount and network namespaces: what the node's containerd and
 * kubelet see (its /etc/cni/net.d, /var/lib/kubelet, …) and where its pods' IPs are reachable.
 */
export function inNode(node: { netnsPath: string; mountNamespace: string }, command: readonly string[]) {
  return ['nsenter', `--mount=${node.mountNamespace}`, `--net=${node.netnsPath}`, '--', ...command];
}

const nodeSysctls: Record<string, string> = {
  'net/ipv6/conf/all/disable_ipv6': '1',
  'net/ipv6/conf/default/disable_ipv6': '1',
  'net/ipv4/ip_forward': '1',
  // Pods on one bridge reach each other's Services through kube-proxy's rules only if bridged
  // traffic passes iptables (per namespace since Linux 5.3).
  'net/bridge/bridge-nf-call-iptables': '1',
};

/**
 * Sets up the nodes' network namespaces (created empty by prepareHost), the way kind's docker
 * network joins its nodes, but with every link inside kube-env's namespaces: the first namespace
 * holds the nodes' bridge carrying the first node's IP; each further node gets a veth whose outer
 * end is a port of that bridge and whose inner end carries its IP. Every namespace routes the
 * Service range and each other node's pod subnet (via that node's IP), and nothing else: no default
 * route anywhere. IPv6 is off, so no link-local address offers another way out.
 */
export async function configureNodesNetwork(nodes: readonly RealNodeSpec[]): Promise<void> {
  const [first] = nodes;
  if (!first) return;
  for (const node of nodes) {
    for (const [key, value] of Object.entries(nodeSysctls)) {
      await run([
        'nsenter',
        `--net=/run/netns/${node.netns}`,
        '--',
        'sh',
        '-c',
        `echo ${value} > /proc/sys/${key}`,
      ]);
    }
    await run(['ip', '-n', node.netns, 'link', 'set', 'lo', 'up']);
  }
  const ip1 = (...args: string[]) => run(['ip', '-n', first.netns, ...args]);
  await ip1('link', 'add', net.nodesBridge, 'type', 'bridge');
  await ip1('addr', 'add', `${first.ip}/24`, 'dev', net.nodesBridge);
  await ip1('link', 'set', net.nodesBridge, 'up');
  await ip1('link', 'add', net.nodeInterface, 'type', 'veth', 'peer', 'name', net.peerInterface);
  await ip1('link', 'set', net.peerInterface, 'master', net.nodesBridge, 'up');
  await ip1('link', 'set', net.nodeInterface, 'up');
  await ip1('route', 'add', net.serviceSubnet, 'dev', net.nodesBridge, 'src', first.ip);
  for (const node of nodes.slice(1)) {
    const port = `kenvn${node.index}`;
    const ip = (...args: string[]) => run(['ip', '-n', node.netns, ...args]);
    await ip1('link', 'add', port, 'type', 'veth', 'peer', 'name', net.nodeInterface, 'netns', node.netns);
    await ip1('link', 'set', port, 'master', net.nodesBridge, 'up');
    await ip('addr', 'add', `${node.ip}/24`, 'dev', net.nodeInterface);
    await ip('link', 'set', net.nodeInterface, 'up');
    await ip('route', 'add', net.serviceSubnet, 'dev', net.nodeInterface, 'src', node.ip);
  }
  for (const node of nodes) {
    for (const other of nodes) {
      if (other !== node)
        await run(['ip', '-n', node.netns, 'route', 'add', other.podSubnet, 'via', other.ip]);
    }
  }
}

/** The base CNI plugins every node's /opt/cni/bin starts with (from Debian's containernetworking-plugins). */
const basePlugins = ['bridge', 'host-local', 'loopback', 'portmap', 'static', 'tuning', 'macvlan', 'ipvlan'];
const systemPlugins = '/usr/lib/cni';

/** Makes `dir` a mount point of its own with private propagation (where mount namespaces can be pinned). */
async function privateMountPoint(dir: string): Promise<void> {
  mkdirSync(dir, { recursive: true });
  const mounted = mountPoints(readFileSync('/proc/self/mountinfo', 'utf8')).some((m) => m.path === dir);
  if (!mounted) await run(['mount', '--bind', dir, dir]);
  await run(['mount', '--make-private', dir]);
}

/**
 * A node's own mount namespace, pinned on layout.mountNamespace: a copy of the machine's mounts,
 * without the copies of namespace pins (other clusters' network namespaces would otherwise live as
 * long as this node), with the node's folders bound over the standard host paths, then `/` made
 * recursively shared as on a systemd host, so Bidirectional and HostToContainer propagation work.
 */
export async function createNodeMountNamespace(clusterRoot: string, layout: NodeLayout): Promise<void> {
  await privateMountPoint(namespacePinDir(clusterRoot));
  for (const path of nodeHostPaths) mkdirSync(nodeHostPath(layout, path), { recursive: true });
  for (const plugin of basePlugins) {
    const from = join(systemPlugins, plugin);
    if (existsSync(from)) copyFileSync(from, join(layout.cniBinDir, plugin));
  }
  writeFileSync(layout.mountNamespace, '');
  await run(['unshare', `--mount=${layout.mountNamespace}`, '--propagation', 'private', 'true']);
  const quote = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;
  const script = [
    'set -e',
    // Field 5 is the mount point; with private propagation there are no optional fields before '-'.
    'awk \'$8 == "nsfs" { print $5 }\' /proc/self/mountinfo | while read -r m; do umount -l "$m"; done',
    'if grep -q " /run/netns " /proc/self/mountinfo; then umount -l /run/netns; fi',
    // The node's own /run as a whole, not folder by folder: multus removes and recreates
    // /run/multus, which fails with EBUSY when that folder is a mount point.
    `mount --bind ${quote(join(layout.hostRoot, 'run'))} /run`,
    ...nodeHostPaths
      .filter((path) => !path.startsWith('/run/'))
      .map((path) => `mount --bind ${quote(nodeHostPath(layout, path))} ${quote(path)}`),
    'mount --make-rshared /',
  ].join('\n');
  await run(['nsenter', `--mount=${layout.mountNamespace}`, '--', 'sh', '-c', script]);
}

/** cgroup v1 hierarchies and the cgroup2 one, as mounted (this machine mounts both). */
export function cgroupHierarchies(): string[] {
  return mountPoints(readFileSync('/proc/self/mountinfo', 'utf8'))
    .filter((m) => m.fstype === 'cgroup' || m.fstype === 'cgroup2')
    .map((m) => m.path);
}

/**
 * `<root>` and `<root>/daemons` in every hierarchy: kubelet puts kubepods under the root, the
 * node's daemons (and so containerd's shims) go into daemons, so teardown finds every process.
 * A new cpuset cgroup starts with no CPUs and no memory nodes: copy the parent's.
 */
export function createCgroups(root: string): string[] {
  const procsFiles: string[] = [];
  for (const hierarchy of cgroupHierarchies()) {
    for (const dir of [join(hierarchy, root), join(hierarchy, root, 'daemons')]) {
      if (!existsSync(dir)) mkdirSync(dir);
      for (const file of ['cpuset.cpus', 'cpuset.mems']) {
        const parent = join(dir, '..', file);
        if (existsSync(parent) && readFileSync(join(dir, file), 'utf8').trim() === '') {
          writeFileSync(join(dir, file), readFileSync(parent, 'utf8'));
        }
      }
    }
    procsFiles.push(join(hierarchy, root, 'daemons', 'cgroup.procs'));
  }
  return procsFiles;
}

/** Moves a process into the daemons cgroup of every hierarchy. */
export function joinCgroups(pid: number, procsFiles: readonly string[]): void {
  for (const file of procsFiles) writeFileSync(file, `${pid}\n`);
}
