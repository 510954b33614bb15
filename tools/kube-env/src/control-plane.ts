import { join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { type ClusterHandle, type StartOptions, startCluster } from './cluster/control-plane.js';

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
  readonly handle: ClusterHandle;
  stop(options?: { purge?: boolean }): Promise<void>;
}

export type ControlPlaneOptions = StartOptions;

/**
 * Starts etcd, kube-apiserver, kube-controller-manager, kube-scheduler and kwok on 127.0.0.1 (or
 * reuses the named cluster with `reuse`), waits until everything is ready, and returns its
 * kubeconfig. Same implementation as `kube-env up`; unless `detach` is set, the processes are
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
    handle,
    stop: (opts) => handle.stop(opts),
  };
}
