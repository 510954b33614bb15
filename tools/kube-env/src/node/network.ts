/**
 * The real node's addresses. Everything lives inside the cluster's own network namespace, which
 * has no default route: these ranges are reachable only from inside it.
 */
export const realNodeNetwork = {
  /** The first node's InternalIP, on the nodes' bridge in the first namespace. */
  nodeIp: '10.250.0.2',
  nodeSubnet: '10.250.0.0/24',
  /**
   * The nodes' network, kind's docker network in small: a bridge in the first node's namespace,
   * one veth per further node (its inner end `kenv0` in that node's namespace), no link to the host.
   */
  nodesBridge: 'kenvnet',
  /** A veth whose end `kenv1` is a port of the nodes' bridge, so the bridge has a carrier with one node. */
  nodeInterface: 'kenv0',
  peerInterface: 'kenv1',
  /** The pods' bridge and the first node's pod subnet; distinct from kwok's range so a fake pod IP never shadows a real one. */
  bridge: 'kenvbr0',
  podSubnet: '10.245.0.0/24',
  podGateway: '10.245.0.1',
  /** Every node's pod subnet is a /24 of this (node k: 10.245.(k-1).0/24); kube-proxy's clusterCIDR. */
  podsSubnet: '10.245.0.0/16',
  /** The Services' range is the API server's --service-cluster-ip-range. */
  serviceSubnet: '10.96.0.0/16',
  kubernetesServiceIp: '10.96.0.1',
  dnsServiceIp: '10.96.0.10',
  clusterDomain: 'cluster.local',
  kubeletPort: 10250,
} as const;

export const realNodeName = 'real-node';

/** At most this many real nodes: one /24 of pod addresses each, node IPs .2 to .(N+1). */
export const maxRealNodes = 16;

/** Where one real node of a cluster lives: its name, addresses, namespaces and cgroup. */
export interface RealNodeSpec {
  /** 1 for the first node (which also holds the control plane), then 2, 3, … */
  index: number;
  name: string;
  ip: string;
  podSubnet: string;
  podGateway: string;
  /** Name under /run/netns. */
  netns: string;
  /** The cgroup (in every hierarchy) of its daemons (`<root>/daemons`) and kubelet's kubepods. */
  cgroupRoot: string;
}

/**
 * Node k of a cluster. The first keeps the single node's names (`real-node`, namespace
 * `kube-env-<cluster>`, cgroup `/kube-env-<cluster>`); the others are `real-node-<k>`, in
 * `kube-env-<cluster>-n<k>`, their cgroups below the first one's, so one tree holds them all.
 */
export function realNodeSpec(cluster: string, index: number): RealNodeSpec {
  if (!Number.isInteger(index) || index < 1 || index > maxRealNodes)
    throw new Error(`real node index must be an integer from 1 to ${maxRealNodes}, got ${index}`);
  const first = index === 1;
  const name = first ? realNodeName : `${realNodeName}-${index}`;
  return {
    index,
    name,
    ip: `10.250.0.${index + 1}`,
    podSubnet: `10.245.${index - 1}.0/24`,
    podGateway: `10.245.${index - 1}.1`,
    netns: first ? netnsName(cluster) : `${netnsName(cluster)}-n${index}`,
    cgroupRoot: first ? cgroupRoot(cluster) : `${cgroupRoot(cluster)}/${name}`,
  };
}

/** Labels and taint that tell the real node from kwok's nodes. */
export const realNodeLabels = { type: 'real' } as const;
/** When a real node is present, kwok's nodes carry this taint so that ordinary pods land on the real node. */
export const fakeNodeTaint = { key: 'kwok.x-k8s.io/node', value: 'fake', effect: 'NoSchedule' } as const;

/** The network namespace of cluster `name`: `nsenter --net=/run/netns/<this>`. */
function netnsName(cluster: string): string {
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
