import { ReconcileError } from '@stackops/lib-common/runtime';
import { OPERATOR_CONFIG_NAME } from '../api/constants.js';
import type { NetworkAddonsConfigStatus } from '../api/network-addons-config.js';
import { computeStatus, ignoredStatus } from '../status/status.js';
import type { NetworkAddonsPass } from './context.js';

/** Seconds precision, as the API server keeps condition times. */
const timestamp = (d: Date): string => d.toISOString().replace(/\.\d+Z$/, 'Z');

/** A step that threw a retryable failure: the status reports it (Degraded) before the retry. */
export function recordFailure(ctx: NetworkAddonsPass, err: unknown): void {
  if (!(err instanceof ReconcileError)) return;
  ctx.outcome = { kind: 'failed', failure: { reason: err.reason, message: err.message } };
  ctx.log.warn({ reason: err.reason, err: err.message }, 'could not apply the configuration');
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
  return update.status;
}
