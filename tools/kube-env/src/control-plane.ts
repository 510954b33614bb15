import { join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { type ClusterHandle, type StartOptions, startCluster } from './cluster/control-plane.js';
import { loadImages, runInRealNode } from './node/access.js';
import type { RealNodeState } from './node/real-node.js';
import type { RunResult } from './util/run.js';

/** The real node of a control plane started with `realNode: true`. */
export interface RealNode extends RealNodeState {
  /** Imports image archives or OCI layouts into the node's containerd; returns the image names. */
  loadImages(paths: readonly string[]): Promise<string[]>;
  /** Runs a command in the node's network namespace (pod IPs, Service VIPs and the node IP are reachable there). */
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
  /** Present when started with `realNode: true` (or when a reused cluster has one). */
  readonly realNode: RealNode | undefined;
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
      run: (command) => runInRealNode(handle.name, command),
    },
    handle,
    stop: (opts) => handle.stop(opts),
  };
}
