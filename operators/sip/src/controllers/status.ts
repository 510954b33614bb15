import { ConditionStatus, Conditions } from '@stackops/lib-common/conditions';
import { patchStatusIfChanged } from '@stackops/lib-common/resources';
import { CONDITION_READY, ReadyReason } from '../api/constants.js';
import { type BareMetalHost, BareMetalHostKind, type SIPCluster, SIPClusterKind } from '../api/kinds.js';
import type { RoleStatus, SIPClusterStatus } from '../api/sipcluster.js';
import { hostOf } from '../hostdata/host-data.js';
import { claimOf, sameCluster } from '../scheduling/claims.js';
import { compareHosts, hostKey, orderedRoles } from '../scheduling/schedule.js';
import type { StepContext, StepFailure } from './context.js';
import { clusterRefOf } from './steps/gather-hosts.js';

/** The Ready condition, with upstream's reasons. */
export function readyTrue(message: string) {
  return {
    type: CONDITION_READY,
    status: ConditionStatus.True,
    reason: ReadyReason.ReconciliationSucceeded,
    message,
  };
}

export function readyFalse(failure: StepFailure) {
  return {
    type: CONDITION_READY,
    status: ConditionStatus.False,
    reason: failure.reason,
    severity: failure.severity,
    message: failure.message,
  };
}

/** `status.nodes` from the hosts' labels as they are in the cache: what each role holds right now. */
export function nodesStatus(ctx: StepContext, sip: SIPCluster): Record<string, RoleStatus> {
  const cluster = clusterRefOf(sip);
  const byRole = new Map<string, string[]>();
  const held = ctx.cache
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

/**
 * Writes status (Ready, observedGeneration, nodes) when it changed, and says whether the Ready
 * condition changed so the caller can record an Event only then.
 */
export async function writeStatus(
  ctx: StepContext,
  sip: SIPCluster,
  ready: ReturnType<typeof readyTrue> | ReturnType<typeof readyFalse>,
): Promise<{ changed: boolean }> {
  const conditions = Conditions.from(sip.status?.conditions);
  const previous = conditions.get(CONDITION_READY);
  conditions.set(ready);
  const status: SIPClusterStatus = {
    ...sip.status,
    conditions: conditions.toJSON(),
    ...(sip.metadata.generation !== undefined ? { observedGeneration: sip.metadata.generation } : {}),
    nodes: nodesStatus(ctx, sip),
  };
  const changed =
    previous?.status !== ready.status ||
    previous?.reason !== ready.reason ||
    previous?.message !== ready.message;
  await patchStatusIfChanged(ctx.client, SIPClusterKind, sip, status);
  return { changed };
}
