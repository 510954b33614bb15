import { LABEL_CLUSTER_NAME, LABEL_CLUSTER_NAMESPACE, LABEL_NODE_TYPE } from '../api/constants.js';

/** A SIPCluster, by namespace and name. */
export interface ClusterRef {
  namespace: string;
  name: string;
}

/** The SIPCluster an object is, as a ClusterRef. */
export const clusterRefOf = (sip: { metadata: { namespace?: string; name?: string } }): ClusterRef => ({
  namespace: sip.metadata.namespace ?? '',
  name: sip.metadata.name ?? '',
});

/** Who holds a host according to its SIP labels. */
export interface Claim extends ClusterRef {
  role: string | undefined;
}

type Labels = Readonly<Record<string, string>> | undefined;

/** A host is claimed when it has the cluster-name label key (upstream: `!sip.airshipit.org/cluster-name` = free). */
export function claimOf(labels: Labels): Claim | undefined {
  if (!labels || !Object.hasOwn(labels, LABEL_CLUSTER_NAME)) return undefined;
  return {
    namespace: labels[LABEL_CLUSTER_NAMESPACE] ?? '',
    name: labels[LABEL_CLUSTER_NAME] ?? '',
    role: labels[LABEL_NODE_TYPE],
  };
}

export const sameCluster = (a: ClusterRef, b: ClusterRef): boolean =>
  a.namespace === b.namespace && a.name === b.name;

export function isClaimedBy(labels: Labels, cluster: ClusterRef): boolean {
  const claim = claimOf(labels);
  return claim !== undefined && sameCluster(claim, cluster);
}

/** The labels that mark a host as scheduled for a cluster's role. */
export function claimLabels(cluster: ClusterRef, role: string): Record<string, string> {
  return {
    [LABEL_CLUSTER_NAMESPACE]: cluster.namespace,
    [LABEL_CLUSTER_NAME]: cluster.name,
    [LABEL_NODE_TYPE]: role,
  };
}
