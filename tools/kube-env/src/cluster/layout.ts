import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { clusterDir } from '../paths.js';

export const controlPlaneComponents = [
  'etcd',
  'kube-apiserver',
  'kube-controller-manager',
  'kube-scheduler',
  'kwok',
] as const;

/** The processes a real node adds (see src/node/): the port forwarder's two halves, then the node. */
const realNodeComponents = [
  'port-forward',
  'port-forward-netns',
  'containerd',
  'kubelet',
  'kube-proxy',
  'coredns',
] as const;

export const componentNames = [...controlPlaneComponents, ...realNodeComponents] as const;
/** The daemons of each further real node (CoreDNS and the forwarder run once, beside the first). */
export const nodeDaemons = ['containerd', 'kubelet', 'kube-proxy'] as const;
export type NodeDaemon = (typeof nodeDaemons)[number];
/** Real node k > 1's daemons are `<daemon>-<k>` (containerd-2, kubelet-2, kube-proxy-2). */
export type ComponentName = (typeof componentNames)[number] | `${NodeDaemon}-${number}`;
export type ControlPlaneComponent = (typeof controlPlaneComponents)[number];

/** The component name of `daemon` on real node `index` (1: the plain name). */
export function nodeComponent(daemon: NodeDaemon, index: number): ComponentName {
  return index === 1 ? daemon : `${daemon}-${index}`;
}

/** Every component a cluster with `realNodes` real nodes runs. */
export function clusterComponents(realNodes: number): ComponentName[] {
  const further = Array.from({ length: Math.max(0, realNodes - 1) }, (_, i) =>
    nodeDaemons.map((d) => nodeComponent(d, i + 2)),
  ).flat();
  return [...controlPlaneComponents, ...(realNodes > 0 ? realNodeComponents : []), ...further];
}

export function isComponentName(name: string): name is ComponentName {
  return (
    (componentNames as readonly string[]).includes(name) ||
    /^(containerd|kubelet|kube-proxy)-([2-9]|1[0-6])$/.test(name)
  );
}

/** Everything a cluster keeps on disk, under clusters/<name>/. */
export interface ClusterLayout {
  readonly name: string;
  readonly root: string;
  /** Ports, binaries and command lines of the running cluster. */
  readonly stateFile: string;
  readonly kubeconfig: string;
  readonly pki: string;
  readonly etcdData: string;
  readonly kwokConfig: string;
  /** Held while `up`/`down` change the cluster, so two callers don't start it twice. */
  readonly lock: string;
  logFile(component: ComponentName): string;
  pidFile(component: ComponentName): string;
}

export function clusterLayout(name: string): ClusterLayout {
  if (!/^[a-z0-9]([a-z0-9._-]{0,62})$/.test(name)) {
    throw new Error(`invalid cluster name "${name}": use lower-case letters, digits, '.', '_' and '-'`);
  }
  const root = clusterDir(name);
  return {
    name,
    root,
    stateFile: join(root, 'cluster.json'),
    kubeconfig: join(root, 'kubeconfig'),
    pki: join(root, 'pki'),
    etcdData: join(root, 'etcd'),
    kwokConfig: join(root, 'kwok.yaml'),
    lock: `${root}.lock`,
    logFile: (component) => join(root, 'logs', `${component}.log`),
    pidFile: (component) => join(root, 'run', `${component}.pid`),
  };
}

/**
 * The shell exports that point kubectl at a cluster (`eval "$(kube-env env)"`). A cluster that was
 * never started has no kubeconfig: say so instead of exporting a path that does not exist.
 */
export function shellExports(name: string, binDir: string): string {
  const layout = clusterLayout(name);
  if (!existsSync(layout.kubeconfig)) {
    throw new Error(
      `cluster ${name} does not exist (no ${layout.kubeconfig}); start it with: kube-env up --name ${name}`,
    );
  }
  return `export KUBECONFIG=${layout.kubeconfig}\nexport PATH=${binDir}:$PATH\n`;
}
