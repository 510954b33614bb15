import { isNotFound } from '@stackops/lib-common/client';
import { ReconcileError } from '@stackops/lib-common/runtime';
import { ReadyReason } from '../../api/constants.js';
import { type BareMetalHost, BareMetalHostKind } from '../../api/kinds.js';
import { clusterRefOf, isClaimedBy } from '../../scheduling/claims.js';
import type { LabelChange } from '../../scheduling/label-changes.js';
import { hostKey } from '../../scheduling/schedule.js';
import type { SIPClusterPass } from '../context.js';
import { waitForCache, writeLabels } from './host-labels.js';

/** On deletion: removes the SIP labels from every host the cluster holds (its services go with it). */
export async function releaseHosts(p: SIPClusterPass): Promise<void> {
  const cluster = clusterRefOf(p.cr);
  const held = p.cache
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
      await writeLabels(p, change);
    } catch (e) {
      if (isNotFound(e)) continue;
      const why = e instanceof Error ? e.message : String(e);
      throw new ReconcileError(`BareMetalHost ${hostKey(change.host)}: ${why}`, {
        reason: ReadyReason.UnableToDecommission,
        severity: 'Warning',
        cause: e,
      });
    }
  }
  await waitForCache(p, changes);
  if (changes.length > 0)
    p.event('Normal', 'HostsReleased', `released ${changes.map((c) => hostKey(c.host)).join(', ')}`);
}
