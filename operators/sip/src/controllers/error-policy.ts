import { isTransient } from '@stackops/lib-common/client';
import { type ErrorPolicy, ReconcileError } from '@stackops/lib-common/runtime';

/** When a SIPCluster whose pass failed is looked at again (also whenever a watched input changes). */
export interface RetryDelays {
  /** After invalid input (severity Error): the user has to change something. */
  invalidInputRetryMs: number;
  /** While waiting for something that may resolve by itself (severity Warning: free hosts, a conflict). */
  waitingRetryMs: number;
}

export const DEFAULT_RETRY_DELAYS: RetryDelays = { invalidInputRetryMs: 5 * 60_000, waitingRetryMs: 30_000 };

/**
 * A failed step's retry: transient API trouble behind it (a conflict, a timeout, a 5xx) goes back
 * to the queue's exponential backoff; otherwise its severity picks a fixed delay. Anything that is
 * not a `ReconcileError` (API trouble outside a step's handling, bugs) backs off too.
 */
export function sipClusterErrorPolicy(delays: RetryDelays): ErrorPolicy {
  return (err) => {
    if (!(err instanceof ReconcileError)) return 'backoff';
    if (err.cause !== undefined && isTransient(err.cause)) return 'backoff';
    return { requeueAfterMs: err.severity === 'Error' ? delays.invalidInputRetryMs : delays.waitingRetryMs };
  };
}
