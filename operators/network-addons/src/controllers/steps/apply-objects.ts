import type { KubeObject } from '@stackops/lib-common/client';
import { applyOwned, applyUnowned, inWaves, objectIdentity } from '@stackops/lib-common/objects';
import { effectiveMacRange } from '../../network/kubemacpool-range.js';
import type { FilledSpec } from '../../network/network.js';
import { kindOf } from '../../resources/kinds.js';
import { takesOwnerReference } from '../../resources/ownership.js';
import { modifiedEvent } from '../../status/events.js';
import { describeObject, errorText, type NetworkAddonsPass, retryableFailure } from '../context.js';

/**
 * Server-side applies every rendered object with the operator's field manager (owned by the CR
 * unless exempt), skipping what is already up to date, so an unchanged spec writes nothing. The
 * writes go in waves (CRDs others use, then what pods need, then the workloads), each wave at once. Tells
 * the user when workloads changed, and when the KubeMacPool range had to be adjusted.
 */
export async function applyObjects(ctx: NetworkAddonsPass) {
  const rendered = ctx.rendered ?? [];
  const results = await inWaves(
    rendered,
    ({ object }) => kindOf(object).kind,
    async ({ component, object }) => {
      const kind = kindOf(object);
      const current =
        ctx.cache.get<KubeObject>(kind, {
          name: object.metadata.name ?? '',
          ...(kind.namespaced && object.metadata.namespace ? { namespace: object.metadata.namespace } : {}),
        }) ?? null;
      try {
        return takesOwnerReference(object)
          ? await applyOwned(ctx.client, ctx.cr, kind, object, { current })
          : await applyUnowned(ctx.client, kind, object, { current });
      } catch (err) {
        throw retryableFailure(
          'FailedToApply',
          `could not apply ${describeObject(object)} (${component}): ${errorText(err)}`,
          err,
        );
      }
    },
    { objectOf: ({ object }) => object },
  );
  const applied = results.map((r) => r.object);
  const wrote = rendered.filter((_, i) => results[i]?.applied).map((r) => r.object);
  ctx.applied = applied;
  if (wrote.length) ctx.log.info({ objects: wrote.length }, 'applied changed objects');
  if (wrote.some((o) => o.kind === 'DaemonSet' || o.kind === 'Deployment'))
    ctx.event(modifiedEvent.type, modifiedEvent.reason, modifiedEvent.message);
  const first = rendered[0]?.object;
  if (first && ctx.filled && wrote.some((o) => objectIdentity(o) === objectIdentity(first)))
    announceRangeAdjustment(ctx, ctx.filled);
  return undefined;
}

/** The Event telling the user a multicast rangeEnd was lowered for KubeMacPool. */
function announceRangeAdjustment(ctx: NetworkAddonsPass, filled: FilledSpec): void {
  const kmp = filled.kubeMacPool;
  if (!kmp?.rangeStart || !kmp.rangeEnd) return;
  const range = effectiveMacRange({ rangeStart: kmp.rangeStart, rangeEnd: kmp.rangeEnd });
  if (!range.adjustedFrom) return;
  ctx.event(
    'Normal',
    'KubeMacPoolRangeEndAdjusted',
    `rangeEnd ${range.adjustedFrom} is a multicast address; KubeMacPool allocates up to ${range.rangeEnd}, the last unicast address below it`,
  );
}
