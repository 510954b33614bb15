import { join } from 'node:path';
import { hostPaths } from './teardown.js';

/**
 * The standard host paths a node's containerd and kubelet see as their own: inside the node's
 * mount namespace, each is a bind of the same path under `<node dir>/host/`. So DaemonSets written
 * for real clusters (hostPath volumes, Bidirectional propagation, CNI plugins dropped into
 * /opt/cni/bin) work unchanged, and two nodes never share a file. /var/run is /run here.
 */
export const nodeHostPaths = hostPaths;

/** Where a real node keeps its state, under the cluster's folder (`clusters/<name>/node/`, `node-2/`, …). */
export interface NodeLayout {
  readonly dir: string;
  /** The node's own copies of the standard host paths (see nodeHostPaths). */
  readonly hostRoot: string;
  /** Pins the node's mount namespace (a bind mount of it), so teardown finds it after a crash. */
  readonly mountNamespace: string;
  readonly pki: string;
  readonly containerdConfig: string;
  readonly containerdRoot: string;
  readonly containerdState: string;
  readonly containerdSocket: string;
  readonly runcRoot: string;
  readonly registryConfig: string;
  readonly containerdOpt: string;
  /** The node's /etc/cni/net.d, /opt/cni/bin and /var/lib/kubelet, as seen from outside it. */
  readonly cniConfDir: string;
  readonly cniBinDir: string;
  readonly kubeletRoot: string;
  readonly kubeletConfig: string;
  readonly kubeletKubeconfig: string;
  readonly kubeletVolumePlugins: string;
  readonly podLogs: string;
  readonly resolvConf: string;
  readonly kubeProxyConfig: string;
  readonly kubeProxyKubeconfig: string;
  readonly corefile: string;
  readonly corednsKubeconfig: string;
  /** Unix sockets of the port forwarder (one per forwarded port). */
  readonly forwardSockets: string;
  /** What the teardown needs to know, written before anything is created (see teardown.ts). */
  readonly record: string;
}

/** The folder under the cluster's holding the pins of its nodes' mount namespaces (bound private on itself). */
export function namespacePinDir(clusterRoot: string): string {
  return join(clusterRoot, 'ns');
}

export function nodeLayout(clusterRoot: string, index = 1): NodeLayout {
  const dir = join(clusterRoot, index === 1 ? 'node' : `node-${index}`);
  const hostRoot = join(dir, 'host');
  return {
    dir,
    hostRoot,
    mountNamespace: join(namespacePinDir(clusterRoot), `node-${index}.mnt`),
    pki: join(dir, 'pki'),
    containerdConfig: join(dir, 'containerd.toml'),
    containerdRoot: join(dir, 'containerd', 'root'),
    containerdState: join(dir, 'containerd', 'state'),
    containerdSocket: join(dir, 'containerd.sock'),
    runcRoot: join(dir, 'containerd', 'runc'),
    registryConfig: join(dir, 'containerd', 'certs.d'),
    containerdOpt: join(dir, 'containerd', 'opt'),
    cniConfDir: join(hostRoot, 'etc/cni/net.d'),
    cniBinDir: join(hostRoot, 'opt/cni/bin'),
    kubeletRoot: join(hostRoot, 'var/lib/kubelet'),
    kubeletConfig: join(dir, 'kubelet.yaml'),
    kubeletKubeconfig: join(dir, 'kubelet.kubeconfig'),
    kubeletVolumePlugins: join(dir, 'kubelet-volume-plugins'),
    podLogs: join(dir, 'pod-logs'),
    resolvConf: join(dir, 'resolv.conf'),
    kubeProxyConfig: join(dir, 'kube-proxy.yaml'),
    kubeProxyKubeconfig: join(dir, 'kube-proxy.kubeconfig'),
    corefile: join(dir, 'Corefile'),
    corednsKubeconfig: join(dir, 'coredns.kubeconfig'),
    forwardSockets: join(dir, 'fwd'),
    record: join(dir, 'node.json'),
  };
}

/** The node's copy of a standard host path. */
export function nodeHostPath(layout: NodeLayout, path: (typeof nodeHostPaths)[number]): string {
  return join(layout.hostRoot, path);
}

/** sun_path holds 108 bytes; containerd appends ".ttrpc" to its socket's path. */
export const maxUnixSocketPath = 107;
