import { isConflict, isNotFound } from '@stackops/lib-common/resources';
import { ReadyReason } from '../../api/constants.js';
import type { SIPCluster } from '../../api/kinds.js';
import { type LabelChange, labelChanges } from '../../scheduling/label-changes.js';
import { hostKey } from '../../scheduling/schedule.js';
import { type StepContext, StepFailure } from '../context.js';
import { clusterRefOf, type GatheredHosts } from './gather-hosts.js';
import { waitForCache, writeLabels } from './host-labels.js';

/**
 * Label phase, run only when every role is complete and every service deployed: labels the new
 * hosts for their role and removes the labels of released ones. Returns the changes made.
 */
export async function labelHosts(
  ctx: StepContext,
  sip: SIPCluster,
  gathered: GatheredHosts,
): Promise<LabelChange[]> {
  const changes = labelChanges(clusterRefOf(sip), gathered.roles, gathered.released);
  for (const change of changes) {
    try {
      await writeLabels(ctx, change);
    } catch (e) {
      const host = hostKey(change.host);
      const why = isConflict(e)
        ? 'it changed since it was scheduled'
        : isNotFound(e)
          ? 'it no longer exists'
          : e instanceof Error
            ? e.message
            : String(e);
      throw new StepFailure(
        ReadyReason.UnableToApplyLabels,
        'Warning',
        'UnableToApplyLabels',
        `BareMetalHost ${host}: ${why}`,
        e,
      );
    }
  }
  await waitForCache(ctx, changes);
  return changes;
}
