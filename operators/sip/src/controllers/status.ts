import type { KubeObject } from '@stackops/lib-common/client';
import type { ConditionInput } from '@stackops/lib-common/conditions';
import type { EventType } from '@stackops/lib-common/runtime';
import { CONDITION_READY } from '../api/constants.js';
import { type BareMetalHost, BareMetalHostKind, type SIPCluster } from '../api/kinds.js';
import type { RoleStatus, SIPClusterStatus } from '../api/sipcluster.js';
import { hostOf } from '../hostdata/host-data.js';
import { claimOf, clusterRefOf, sameCluster } from '../scheduling/claims.js';
import { compareHosts, hostKey, orderedRoles } from '../scheduling/schedule.js';
import type { SIPClusterPass } from './context.js';

/** `status.nodes` from the hosts' labels as they are in the cache: what each role holds right now. */
function nodesStatus(cache: SIPClusterPass['cache'], sip: SIPCluster): Record<string, RoleStatus> {
  const cluster = clusterRefOf(sip);
  const byRole = new Map<string, string[]>();
  const held = cache
    .list<BareMetalHost>(BareMetalHostKind)
    .map(hostOf)
    .filter((h) => {
      const claim = claimOf(h.labels);
      return claim !== undefined && sameCluster(claim, cluster);
    })
    .sort(compareHosts);
  for (const h of held) {
    const role = claimOf(h.labels)?.role ?? '';
    byRole.set(role, [...(byRole.get(role) ?? []), hostKey(h)]);
  }
  const nodes = sip.spec.nodes ?? {};
  const roles = [...new Set([...orderedRoles(nodes), ...byRole.keys()])];
  return Object.fromEntries(
    roles.map((role) => {
      const hosts = byRole.get(role) ?? [];
      const count = nodes[role]?.count;
      return [
        role,
        { hosts, scheduled: hosts.length, requested: (count?.active ?? 0) + (count?.standby ?? 0) },
      ];
    }),
  );
}

interface DeploymentRollout {
  spec?: { replicas?: number };
  status?: {
    observedGeneration?: number;
    replicas?: number;
    updatedReplicas?: number;
    availableReplicas?: number;
  };
}

/**
 * Whether a service Deployment has rolled out: its controller saw the current spec, every wanted
 * replica runs the current template and is available, and no pod of an older template is left.
 */
export function rolledOut(deployment: KubeObject): boolean {
  const { spec, status = {} } = deployment as KubeObject & DeploymentRollout;
  const wanted = spec?.replicas ?? 1;
  return (
    (deployment.metadata.generation ?? 0) <= (status.observedGeneration ?? 0) &&
    (status.updatedReplicas ?? 0) >= wanted &&
    (status.availableReplicas ?? 0) >= wanted &&
    (status.replicas ?? 0) <= wanted
  );
}

/**
 * Sets Ready (the one condition upstream writes, with its reasons) and records an Event when it
 * changed: its status, reason or message, so a cluster that changes size or fails differently
 * says so once, and an unchanged outcome records nothing.
 */
export function setReady(
  p: SIPClusterPass,
  ready: ConditionInput,
  event: { type: EventType; reason: string; message: string },
): void {
  const before = p.conditions.get(CONDITION_READY);
  p.conditions.set(ready);
  if (before?.status !== ready.status || before?.reason !== ready.reason || before?.message !== ready.message)
    p.event(event.type, event.reason, event.message);
}

/**
 * The status a pass writes: Ready, observedGeneration and the hosts each role holds. A deletion
 * that went through writes nothing (the object is going away); one that failed reports why.
 */
export function sipClusterStatus(p: SIPClusterPass): SIPClusterStatus {
  if (p.cr.metadata.deletionTimestamp && !p.failure) return p.previousStatus ?? {};
  return { ...p.status, conditions: p.conditions.toJSON(), nodes: nodesStatus(p.cache, p.cr) };
}
