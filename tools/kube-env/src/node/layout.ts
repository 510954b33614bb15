import { join } from 'node:path';

/** Where the real node keeps its state, under the cluster's folder (`clusters/<name>/node/`). */
export interface NodeLayout {
  readonly dir: string;
  readonly pki: string;
  readonly containerdConfig: string;
  readonly containerdRoot: string;
  readonly containerdState: string;
  readonly containerdSocket: string;
  readonly runcRoot: string;
  readonly registryConfig: string;
  readonly containerdOpt: string;
  readonly cniConfDir: string;
  readonly cniIpamDir: string;
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

export function nodeLayout(clusterRoot: string): NodeLayout {
  const dir = join(clusterRoot, 'node');
  return {
    dir,
    pki: join(dir, 'pki'),
    containerdConfig: join(dir, 'containerd.toml'),
    containerdRoot: join(dir, 'containerd', 'root'),
    containerdState: join(dir, 'containerd', 'state'),
    containerdSocket: join(dir, 'containerd.sock'),
    runcRoot: join(dir, 'containerd', 'runc'),
    registryConfig: join(dir, 'containerd', 'certs.d'),
    containerdOpt: join(dir, 'containerd', 'opt'),
    cniConfDir: join(dir, 'cni', 'net.d'),
    cniIpamDir: join(dir, 'cni', 'ipam'),
    kubeletRoot: join(dir, 'kubelet'),
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

/** sun_path holds 108 bytes; containerd appends ".ttrpc" to its socket's path. */
export const maxUnixSocketPath = 107;
