import { isConflict, isNotFound } from '@stackops/lib-common/client';
import { ReconcileError } from '@stackops/lib-common/runtime';
import { LABEL_NODE_TYPE, ReadyReason } from '../../api/constants.js';
import { clusterRefOf } from '../../scheduling/claims.js';
import { labelChanges } from '../../scheduling/label-changes.js';
import { hostKey } from '../../scheduling/schedule.js';
import { fromStep, type SIPClusterPass } from '../context.js';
import { waitForCache, writeLabels } from './host-labels.js';

/**
 * Runs only once every role is complete and every service deployed: labels the new hosts for
 * their role and removes the labels of released ones, each with an Event. A host that changed
 * since it was scheduled is not claimed (a Warning; retried).
 */
export async function labelHosts(p: SIPClusterPass): Promise<void> {
  const gathered = fromStep(p.gathered, 'gatherHosts');
  const changes = labelChanges(clusterRefOf(p.cr), gathered.roles, gathered.released);
  for (const change of changes) {
    try {
      await writeLabels(p, change);
    } catch (e) {
      const why = isConflict(e)
        ? 'it changed since it was scheduled'
        : isNotFound(e)
          ? 'it no longer exists'
          : e instanceof Error
            ? e.message
            : String(e);
      throw new ReconcileError(`BareMetalHost ${hostKey(change.host)}: ${why}`, {
        reason: ReadyReason.UnableToApplyLabels,
        severity: 'Warning',
        cause: e,
      });
    }
  }
  await waitForCache(p, changes);
  for (const c of changes) {
    const host = `${c.host.namespace}/${c.host.name}`;
    if (c.set)
      p.event('Normal', 'HostScheduled', `BareMetalHost ${host} labelled as ${c.set[LABEL_NODE_TYPE]}`);
    else p.event('Normal', 'HostReleased', `BareMetalHost ${host} released`);
  }
}
