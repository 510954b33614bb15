import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { run } from '../util/run.js';
import { realNodeNetwork as net, netnsName, netnsPath } from './network.js';
import { mountPoints } from './teardown.js';

/** Runs a command inside the node's network namespace (nsenter, not `ip netns exec`: that remounts /sys). */
export function inNetns(cluster: string, command: readonly string[]): string[] {
  return ['nsenter', `--net=${netnsPath(cluster)}`, '--', ...command];
}

/**
 * Sets up the node's network namespace (created empty by prepareHost): loopback, the node IP on a
 * veth pair whose two ends both stay inside, a route to the Service range (so the node itself
 * reaches Service VIPs) and no default route. IPv6 is off, so no link-local address offers another
 * way out.
 */
export async function configureNetworkNamespace(cluster: string): Promise<void> {
  const name = netnsName(cluster);
  const ip = (...args: string[]) => run(['ip', '-n', name, ...args]);
  const sysctls: Record<string, string> = {
    'net/ipv6/conf/all/disable_ipv6': '1',
    'net/ipv6/conf/default/disable_ipv6': '1',
    'net/ipv4/ip_forward': '1',
    // Pods on one bridge reach each other's Services through kube-proxy's rules only if bridged
    // traffic passes iptables (per namespace since Linux 5.3).
    'net/bridge/bridge-nf-call-iptables': '1',
  };
  for (const [key, value] of Object.entries(sysctls)) {
    await run(inNetns(cluster, ['sh', '-c', `echo ${value} > /proc/sys/${key}`]));
  }
  await ip('link', 'set', 'lo', 'up');
  await ip('link', 'add', net.nodeInterface, 'type', 'veth', 'peer', 'name', net.peerInterface);
  await ip('addr', 'add', `${net.nodeIp}/24`, 'dev', net.nodeInterface);
  await ip('link', 'set', net.nodeInterface, 'up');
  await ip('link', 'set', net.peerInterface, 'up');
  await ip('route', 'add', net.serviceSubnet, 'dev', net.nodeInterface, 'src', net.nodeIp);
}

/** cgroup v1 hierarchies and the cgroup2 one, as mounted (this machine mounts both). */
function cgroupHierarchies(): string[] {
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
