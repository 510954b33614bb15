import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { clusterLayout } from '../cluster/layout.js';
import { readState } from '../cluster/state.js';
import { type RunResult, run } from '../util/run.js';
import { importImages } from './images.js';
import { cgroupHierarchies, inNode } from './namespace.js';
import { cgroupRoot } from './network.js';
import { containerdReady, type RealNodeState } from './real-node.js';

function realNodesOf(cluster: string): RealNodeState[] {
  const state = readState(clusterLayout(cluster));
  const nodes = state?.realNodes ?? (state?.realNode ? [state.realNode] : []);
  if (nodes.length === 0)
    throw new Error(`cluster ${cluster} has no real node (start it with --real-node / realNode: true)`);
  return nodes;
}

function realNodeOf(cluster: string, name?: string): RealNodeState {
  const nodes = realNodesOf(cluster);
  const node = name === undefined ? nodes[0] : nodes.find((n) => n.name === name);
  if (!node)
    throw new Error(
      `cluster ${cluster} has no real node ${name} (it has ${nodes.map((n) => n.name).join(', ')})`,
    );
  return node;
}

/**
 * Loads image archives (docker or OCI tar, e.g. build/images/<name>/image.oci.tar) or OCI layout
 * folders into every running real node of `cluster` (or only the one named), under the names they
 * carry; returns those names. Pods then use them with `imagePullPolicy: IfNotPresent` (or Never).
 */
export async function loadImages(
  cluster: string,
  paths: readonly string[],
  node?: string,
): Promise<string[]> {
  const nodes = node === undefined ? realNodesOf(cluster) : [realNodeOf(cluster, node)];
  for (const n of nodes) {
    if (!(await containerdReady(n.containerdSocket))) {
      throw new Error(
        `the real node ${n.name} of cluster ${cluster} is not running (no containerd at ${n.containerdSocket})`,
      );
    }
  }
  const loaded = await Promise.all(nodes.map((n) => importImages(n.containerdSocket, paths)));
  return loaded[0] ?? [];
}

/** The command prefix that enters a real node: its mount namespace (when it has one) and network namespace. */
export function nodeEnterCommand(node: RealNodeState, command: readonly string[]): string[] {
  return node.mountNamespace
    ? inNode(node, command)
    : ['nsenter', `--net=${node.netnsPath}`, '--', ...command];
}

/**
 * Runs a command inside a real node of `cluster` (the first unless `node` names another): in its
 * mount namespace, where /etc/cni/net.d, /var/lib/kubelet, … are the node's own, and its network
 * namespace, where pod IPs, Service VIPs and node IPs are reachable. Rejects on a non-zero exit.
 */
export function runInRealNode(
  cluster: string,
  command: readonly string[],
  node?: string,
): Promise<RunResult> {
  return run(nodeEnterCommand(realNodeOf(cluster, node), command));
}

/**
 * Freezes (or thaws) every process of a further real node (not the first: its cgroup holds the
 * others'): containerd, kubelet, kube-proxy and its pods stop at once, as a host that hangs or
 * drops off the network; thawed, they go on where they stopped. For tests of a lost node.
 */
export function setRealNodeFrozen(cluster: string, node: string, frozen: boolean): void {
  const n = realNodeOf(cluster, node);
  if (n.index === 1)
    throw new Error(`${node} is the first real node of ${cluster}: only a further node can be frozen`);
  const files = cgroupHierarchies()
    .map((h) => join(h, cgroupRoot(cluster), n.name))
    .flatMap((dir) => [join(dir, 'freezer.state'), join(dir, 'cgroup.freeze')])
    .flat()
    .filter((f) => existsSync(f));
  if (files.length === 0) throw new Error(`no cgroup freezer for ${node} of ${cluster}`);
  for (const f of files)
    writeFileSync(f, f.endsWith('freezer.state') ? (frozen ? 'FROZEN' : 'THAWED') : frozen ? '1' : '0');
}
