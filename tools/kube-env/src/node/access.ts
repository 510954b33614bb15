import { clusterLayout } from '../cluster/layout.js';
import { readState } from '../cluster/state.js';
import { type RunResult, run } from '../util/run.js';
import { importImages } from './images.js';
import { containerdReady, type RealNodeState } from './real-node.js';

function realNodeOf(cluster: string): RealNodeState {
  const node = readState(clusterLayout(cluster))?.realNode;
  if (!node)
    throw new Error(`cluster ${cluster} has no real node (start it with --real-node / realNode: true)`);
  return node;
}

/**
 * Loads image archives (docker or OCI tar, e.g. build/images/<name>/image.oci.tar) or OCI layout
 * folders into the running real node of `cluster`, under the names they carry; returns those names.
 * Pods then use them with `imagePullPolicy: IfNotPresent` (or Never).
 */
export async function loadImages(cluster: string, paths: readonly string[]): Promise<string[]> {
  const node = realNodeOf(cluster);
  if (!(await containerdReady(node.containerdSocket))) {
    throw new Error(
      `the real node of cluster ${cluster} is not running (no containerd at ${node.containerdSocket})`,
    );
  }
  return importImages(node.containerdSocket, paths);
}

/**
 * Runs a command in the real node's network namespace, where pod IPs, Service VIPs and the node IP
 * are reachable (`nsenter --net=/run/netns/kube-env-<cluster> -- <command>`). Rejects on a non-zero exit.
 */
export function runInRealNode(cluster: string, command: readonly string[]): Promise<RunResult> {
  const node = realNodeOf(cluster);
  return run(['nsenter', `--net=${node.netnsPath}`, '--', ...command]);
}
