import { join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { type ClusterHandle, type StartOptions, startCluster } from './cluster/control-plane.js';
import { loadImages, runInRealNode } from './node/access.js';
import type { RealNodeState } from './node/real-node.js';
import type { RunResult } from './util/run.js';

/** A real node of a control plane started with `realNode: true` or `realNodes: N`. */
export interface RealNode extends RealNodeState {
  /**
   * Imports image archives or OCI layouts; returns the image names. On the first node's object
   * (`realNode`), into every real node, so a pod finds its image wherever it is scheduled; on one
   * of `realNodes`, into that node only.
   */
  loadImages(paths: readonly string[]): Promise<string[]>;
  /**
   * Runs a command in the node's mount and network namespaces (its /etc/cni/net.d, /var/lib/kubelet…;
   * pod IPs, Service VIPs and node IPs are reachable there).
   */
  run(command: readonly string[]): Promise<RunResult>;
}

/** A running local control plane, as the tests and the demo see it. */
export interface ControlPlane {
  readonly name: string;
  readonly kubeconfigPath: string;
  /** Loaded from kubeconfigPath: admin (system:masters) credentials. */
  readonly kubeConfig: KubeConfig;
  readonly server: string;
  /** Absolute paths of the matching kubectl and helm binaries. */
  readonly kubectl: string;
  readonly helm: string;
  readonly reused: boolean;
  readonly startupMs: number;
  /** The first real node, present when started with `realNode: true` / `realNodes` (or when a reused cluster has one). */
  readonly realNode: RealNode | undefined;
  /** Every real node, the first included (empty without). */
  readonly realNodes: RealNode[];
  readonly handle: ClusterHandle;
  stop(options?: { purge?: boolean }): Promise<void>;
}

export type ControlPlaneOptions = StartOptions;

/**
 * Starts etcd, kube-apiserver, kube-controller-manager, kube-scheduler and kwok on 127.0.0.1 (or
 * reuses the named cluster with `reuse`), with `realNode` also a real node (see README), waits until
 * everything is ready, and returns its kubeconfig. Same implementation as `kube-env up`; unless `detach` is set, the processes are
 * stopped when this process exits.
 */
export async function startControlPlane(options: ControlPlaneOptions = {}): Promise<ControlPlane> {
  const handle = await startCluster(options);
  // Loaded here rather than at the top: the CLI does not need it, and it takes ~0.5 s to import.
  const { KubeConfig } = await import('@kubernetes/client-node');
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(handle.kubeconfigPath);
  return {
    name: handle.name,
    kubeconfigPath: handle.kubeconfigPath,
    kubeConfig,
    server: handle.server,
    kubectl: join(handle.binDir, 'kubectl'),
    helm: join(handle.binDir, 'helm'),
    reused: handle.reused,
    startupMs: handle.startupMs,
    realNode: handle.realNode && {
      ...handle.realNode,
      loadImages: (paths) => loadImages(handle.name, paths),
      run: (command) => runInRealNode(handle.name, command, handle.realNode?.name),
    },
    realNodes: handle.realNodes.map((node) => ({
      ...node,
      loadImages: (paths) => loadImages(handle.name, paths, node.name),
      run: (command) => runInRealNode(handle.name, command, node.name),
    })),
    handle,
    stop: (opts) => handle.stop(opts),
  };
}
