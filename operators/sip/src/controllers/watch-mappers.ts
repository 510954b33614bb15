import type { ObjectRef } from '@stackops/lib-common/client';
import { CONDITION_READY } from '../api/constants.js';
import type { BareMetalHost, SIPCluster } from '../api/kinds.js';
import { networkDataSecretRef } from '../hostdata/host-data.js';
import { claimOf } from '../scheduling/claims.js';
import { selectorMatches } from '../scheduling/selector.js';

const refOf = (sip: SIPCluster): ObjectRef => ({
  namespace: sip.metadata.namespace ?? '',
  name: sip.metadata.name ?? '',
});
const keyOf = (ns: string | undefined, name: string | undefined) => `${ns ?? ''}/${name ?? ''}`;

const isReady = (sip: SIPCluster) =>
  sip.status?.conditions?.some((c) => c.type === CONDITION_READY && c.status === 'True') ?? false;

/** Whether the cluster's status lists the host among the ones it holds. */
const listsHost = (sip: SIPCluster, hostKey: string) =>
  Object.values(sip.status?.nodes ?? {}).some((r) => r.hosts.includes(hostKey));

/**
 * The SIPClusters a BareMetalHost change concerns: the one its labels name, those whose status
 * lists it (its labels may just have been removed), and every cluster not Ready yet (a host that
 * appears or changes may be the one it is missing). A Ready cluster never takes new hosts unless one
 * of its own changes, so it is left alone otherwise.
 */
export function clustersForHost(bmh: BareMetalHost, clusters: readonly SIPCluster[]): ObjectRef[] {
  const claim = claimOf(bmh.metadata.labels);
  const key = keyOf(bmh.metadata.namespace, bmh.metadata.name);
  return clusters
    .filter(
      (sip) =>
        (claim && claim.namespace === sip.metadata.namespace && claim.name === sip.metadata.name) ||
        listsHost(sip, key) ||
        !isReady(sip),
    )
    .map(refOf);
}

/** Names of the Secrets in its own namespace that a SIPCluster's services reference. */
export function serviceSecretNames(sip: SIPCluster): Set<string> {
  const names = new Set<string>();
  for (const jh of sip.spec.services?.jumpHost ?? []) names.add(jh.nodeSSHPrivateKeys);
  for (const a of sip.spec.services?.auth ?? []) {
    if (a.tlsSecret) names.add(a.tlsSecret);
    if (a.envFromSecret) names.add(a.envFromSecret);
    for (const c of a.staticClients ?? []) if (c.secretRef) names.add(c.secretRef.name);
  }
  return names;
}

/** A free host (no cluster's) that one of the cluster's roles selects: what a scale-up may take. */
const mayTake = (sip: SIPCluster, h: BareMetalHost) =>
  !claimOf(h.metadata.labels) &&
  Object.values(sip.spec.nodes ?? {}).some((role) => selectorMatches(role.labelSelector, h.metadata.labels));

/**
 * The Secrets of the hosts a SIPCluster concerns (the networkData and BMC credentials Secrets of
 * each host it holds or its roles may take, or of every host while it is not Ready: fixing a host's
 * Secret may make it schedulable). The controller watches them by name, so no other Secret is listed
 * or cached; a free candidate's are watched already when a Ready cluster grows (its first pass after
 * the change reads them, not a cache that does not hold them yet).
 */
export function secretRefsOfHosts(sip: SIPCluster, hosts: readonly BareMetalHost[]): ObjectRef[] {
  const refs: ObjectRef[] = [];
  for (const h of hosts) {
    if (clustersForHost(h, [sip]).length === 0 && !mayTake(sip, h)) continue;
    const nd = networkDataSecretRef(h);
    if (nd) refs.push(nd);
    const bmc = h.spec?.bmc?.credentialsName;
    if (bmc) refs.push({ namespace: h.metadata.namespace ?? '', name: bmc });
  }
  return refs;
}
