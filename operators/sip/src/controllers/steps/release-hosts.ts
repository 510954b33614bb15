import { isNotFound } from '@stackops/lib-common/resources';
import { ReadyReason } from '../../api/constants.js';
import { type BareMetalHost, BareMetalHostKind, type SIPCluster } from '../../api/kinds.js';
import { isClaimedBy } from '../../scheduling/claims.js';
import type { LabelChange } from '../../scheduling/label-changes.js';
import { hostKey } from '../../scheduling/schedule.js';
import { type StepContext, StepFailure } from '../context.js';
import { clusterRefOf } from './gather-hosts.js';
import { waitForCache, writeLabels } from './host-labels.js';

/** Removes the SIP labels from every host the cluster holds (deletion). */
export async function releaseAllHosts(ctx: StepContext, sip: SIPCluster): Promise<string[]> {
  const cluster = clusterRefOf(sip);
  const held = ctx.cache
    .list<BareMetalHost>(BareMetalHostKind)
    .filter((b) => isClaimedBy(b.metadata.labels, cluster));
  const changes: LabelChange[] = held.map((b) => ({
    host: {
      namespace: b.metadata.namespace ?? '',
      name: b.metadata.name ?? '',
      labels: b.metadata.labels ?? {},
    },
    set: undefined,
  }));
  for (const change of changes) {
    try {
      await writeLabels(ctx, change);
    } catch (e) {
      if (isNotFound(e)) continue;
      const why = e instanceof Error ? e.message : String(e);
      throw new StepFailure(
        ReadyReason.UnableToDecommission,
        'Warning',
        'UnableToDecommission',
        `BareMetalHost ${hostKey(change.host)}: ${why}`,
        e,
      );
    }
  }
  await waitForCache(ctx, changes);
  return changes.map((c) => hostKey(c.host));
}
