import { SIP_HOST_LABELS } from '../../api/constants.js';
import { type BareMetalHost, BareMetalHostKind } from '../../api/kinds.js';
import { applyLabelChange, type LabelChange } from '../../scheduling/label-changes.js';
import { hostKey } from '../../scheduling/schedule.js';
import type { SIPClusterPass } from '../context.js';

/** What writing host labels uses from a pass. */
type LabelWriter = Pick<SIPClusterPass, 'client' | 'cache' | 'log'>;

/** How long a reconcile waits for the cache to show its own label writes before the next SIPCluster runs. */
const CACHE_CATCH_UP_MS = 5000;
/**
 * How often it looks: the watch event of a label write comes a few ms after the write, and the
 * pass's status write (the SIPCluster's Ready) waits on this, so a coarse poll is all latency.
 */
const CACHE_POLL_MS = 2;

/**
 * Writes one host's SIP labels with a JSON merge patch that carries the resourceVersion the
 * decision was made on: if anything changed the host meanwhile (another cluster claimed it), the
 * API server answers 409 and nothing is written.
 */
export async function writeLabels(ctx: LabelWriter, change: LabelChange): Promise<BareMetalHost> {
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
export async function waitForCache(ctx: LabelWriter, changes: readonly LabelChange[]): Promise<void> {
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
    await new Promise((r) => setTimeout(r, CACHE_POLL_MS));
  }
}
