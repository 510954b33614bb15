import { isDeepStrictEqual } from 'node:util';
import { cutMessage, failureMessage } from '@stackops/lib-common/conditions';
import { ReconcileError } from '@stackops/lib-common/runtime';
import { OPERATOR_CONFIG_NAME } from '../api/constants.js';
import type { NetworkAddonsConfigStatus } from '../api/network-addons-config.js';
import { paceProgressMessage } from '../status/progress-pace.js';
import { computeStatus, ignoredStatus } from '../status/status.js';
import type { NetworkAddonsPass } from './context.js';

/** A status change older than this no longer paces anything. */
const FORGET_AFTER_MS = 60_000;

/** Seconds precision, as the API server keeps condition times. */
const timestamp = (d: Date): string => d.toISOString().replace(/\.\d+Z$/, 'Z');

/**
 * A step that threw: the status reports it (Degraded) before the retry. A `ReconcileError` says its
 * own reason; anything else (an API error a step did not expect) is told by lib-common's failure table.
 */
export function recordFailure(ctx: NetworkAddonsPass, err: unknown): void {
  const failure =
    err instanceof ReconcileError
      ? { reason: err.reason, message: cutMessage(err.message) }
      : (({ eventReason, message }) => ({ reason: eventReason, message }))(failureMessage(err));
  ctx.outcome = { kind: 'failed', failure };
  ctx.log.warn(
    { reason: failure.reason, err: err instanceof Error ? err.message : String(err) },
    'could not apply the configuration',
  );
}

/**
 * The KubeMacPool range in use, once the configuration was applied with one (kept when a pass
 * failed or KubeMacPool was turned off, so turning it on again or losing the applied-config
 * ConfigMap keeps the addresses).
 */
function withKubeMacPoolRange(
  status: NetworkAddonsConfigStatus,
  ctx: NetworkAddonsPass,
): NetworkAddonsConfigStatus {
  const kmp = ctx.filled?.kubeMacPool;
  const range =
    ctx.outcome?.kind !== 'failed' && kmp?.rangeStart && kmp.rangeEnd
      ? { rangeStart: kmp.rangeStart, rangeEnd: kmp.rangeEnd }
      : ctx.previousStatus?.kubeMacPoolRange;
  return range ? { ...status, kubeMacPoolRange: range } : status;
}

/**
 * The status this pass ends with (upstream's ClusterOperator-style conditions, see status/),
 * computed from the status before it; its Events (Progressing, Available, Failed) are queued after
 * the steps' own. A pass that ended without an outcome (an unexpected error) changes nothing.
 */
export function finishStatus(ctx: NetworkAddonsPass): NetworkAddonsConfigStatus {
  const before = ctx.previousStatus;
  const versions = {
    operatorVersion: ctx.settings.env.operatorVersion,
    generation: ctx.cr.metadata.generation,
  };
  const now = timestamp(ctx.now());
  if (ctx.ignored)
    return ignoredStatus(before, ctx.cr.metadata.name ?? '', OPERATOR_CONFIG_NAME, versions, now);
  if (!ctx.outcome) return before ?? {};
  const update = computeStatus(before, ctx.outcome, versions, now);
  for (const e of update.events) ctx.event(e.type, e.reason, e.message);
  return paced(ctx, withKubeMacPoolRange(update.status, ctx));
}

/**
 * The status with a new Progressing message held back while the last write is younger than the
 * interval (status/progress-pace.ts); the pass then wakes when the message is due. Remembers when
 * the status last changed, per object.
 */
function paced(ctx: NetworkAddonsPass, next: NetworkAddonsConfigStatus): NetworkAddonsConfigStatus {
  const uid = ctx.cr.metadata.uid ?? '';
  const nowMs = ctx.now().getTime();
  const { status, heldForMs } = paceProgressMessage(
    ctx.previousStatus,
    next,
    ctx.statusChanges.get(uid),
    nowMs,
  );
  if (heldForMs !== undefined) ctx.requeueAfter(heldForMs);
  else if (!isDeepStrictEqual(status, ctx.previousStatus)) {
    // Entries of objects long gone are dropped here: the map holds the singleton and little else.
    for (const [key, at] of ctx.statusChanges)
      if (nowMs - at > FORGET_AFTER_MS) ctx.statusChanges.delete(key);
    ctx.statusChanges.set(uid, nowMs);
  }
  return status;
}
