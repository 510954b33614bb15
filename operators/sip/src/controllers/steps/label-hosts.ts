import { isConflict, isNotFound } from '@stackops/lib-common/resources';
import { ReadyReason, SIP_HOST_LABELS } from '../../api/constants.js';
import type { SIPCluster } from '../../api/kinds.js';
import { type BareMetalHost, BareMetalHostKind } from '../../api/kinds.js';
import { isClaimedBy } from '../../scheduling/claims.js';
import { applyLabelChange, type LabelChange, labelChanges } from '../../scheduling/label-changes.js';
import { hostKey } from '../../scheduling/schedule.js';
import { type StepContext, StepFailure } from '../context.js';
import { clusterRefOf, type GatheredHosts } from './gather.js';

/** How long a reconcile waits for the cache to show its own label writes before the next SIPCluster runs. */
const CACHE_CATCH_UP_MS = 5000;

/**
 * Writes one host's SIP labels with a JSON merge patch that carries the resourceVersion the
 * decision was made on: if anything changed the host meanwhile (another cluster claimed it), the
 * API server answers 409 and nothing is written.
 */
async function writeLabels(ctx: StepContext, change: LabelChange): Promise<BareMetalHost> {
  const ref = { namespace: change.host.namespace, name: change.host.name };
  const live = ctx.cache.get<BareMetalHost>(BareMetalHostKind, ref);
  const labels = change.set ?? Object.fromEntries(SIP_HOST_LABELS.map((k) => [k, null]));
  const metadata = {
    labels,
    ...(live?.metadata.resourceVersion ? { resourceVersion: live.metadata.resourceVersion } : {}),
  };
  return ctx.client.patch<BareMetalHost>(BareMetalHostKind, ref, { metadata }, 'merge');
}

const labelsMatch = (obj: BareMetalHost | undefined, want: Record<string, string>) =>
  SIP_HOST_LABELS.every((k) => obj?.metadata.labels?.[k] === want[k]);

/**
 * Waits until the informer cache shows the labels this reconcile wrote, so the next SIPCluster
 * (processed right after, one at a time) never schedules from a view in which these hosts look free.
 */
async function waitForCache(ctx: StepContext, changes: readonly LabelChange[]): Promise<void> {
  const deadline = Date.now() + CACHE_CATCH_UP_MS;
  const pending = () =>
    changes.filter((c) => {
      const cached = ctx.cache.get<BareMetalHost>(BareMetalHostKind, {
        namespace: c.host.namespace,
        name: c.host.name,
      });
      return !labelsMatch(cached, applyLabelChange(c.host.labels, c.set));
    });
  while (pending().length > 0) {
    if (Date.now() > deadline) {
      ctx.log.warn(
        { hosts: pending().map((c) => hostKey(c.host)) },
        'the cache did not show the host labels in time',
      );
      return;
    }
    await new Promise((r) => setTimeout(r, 25));
  }
}

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
