/**
 * The real node's addresses. Everything lives inside the cluster's own network namespace, which
 * has no default route: these ranges are reachable only from inside it.
 */
export const realNodeNetwork = {
  /** The node's InternalIP, on one end of a veth pair that stays inside the namespace. */
  nodeIp: '10.250.0.2',
  nodeSubnet: '10.250.0.0/24',
  nodeInterface: 'kenv0',
  /** The veth's other end: a veth needs a peer, and `dummy` links are not available on every kernel. */
  peerInterface: 'kenv1',
  /** The pods' bridge and their subnet; distinct from kwok's range so a fake pod IP never shadows a real one. */
  bridge: 'kenvbr0',
  podSubnet: '10.245.0.0/24',
  podGateway: '10.245.0.1',
  /** The Services' range is the API server's --service-cluster-ip-range. */
  serviceSubnet: '10.96.0.0/16',
  kubernetesServiceIp: '10.96.0.1',
  dnsServiceIp: '10.96.0.10',
  clusterDomain: 'cluster.local',
  kubeletPort: 10250,
} as const;

export const realNodeName = 'real-node';

/** Labels and taint that tell the real node from kwok's nodes. */
export const realNodeLabels = { type: 'real' } as const;
/** When a real node is present, kwok's nodes carry this taint so that ordinary pods land on the real node. */
export const fakeNodeTaint = { key: 'kwok.x-k8s.io/node', value: 'fake', effect: 'NoSchedule' } as const;

/** The network namespace of cluster `name`: `nsenter --net=/run/netns/<this>`. */
export function netnsName(cluster: string): string {
  return `kube-env-${cluster}`;
}

export function netnsPath(cluster: string): string {
  return `/run/netns/${netnsName(cluster)}`;
}

/** The cgroup (in every hierarchy) that holds the node's daemons and, below it, kubelet's kubepods. */
export function cgroupRoot(cluster: string): string {
  return `/kube-env-${cluster}`;
}

/** The CNI network's name, which also prefixes its cache files under /var/lib/cni/results. */
export function cniNetworkName(cluster: string): string {
  return `kube-env-${cluster}`;
}
