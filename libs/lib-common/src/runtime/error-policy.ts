import type { KubeObject } from '../client/types.js';

/**
 * What the controller does with a failed reconcile (kube-runtime's `error_policy`):
 * - `'backoff'`: retry with the key's exponential backoff (5 ms doubling to 5 min by default);
 * - `'terminal'`: not retried until the object or a watched input changes (a Warning Event says why);
 * - `{ requeueAfterMs }`: retry after this fixed delay (and on any change before it).
 */
export type ErrorAction = 'backoff' | 'terminal' | { requeueAfterMs: number };

/**
 * A reconcile that cannot complete, carrying what the user is told (`reason`, the message) and
 * when to try again (`retry`, default `'backoff'`). Operators throw it (or `TerminalError`) from a
 * step instead of defining their own failure types; the pipeline's `failed` hook turns it into
 * conditions, the controller's error policy into the retry.
 */
export class ReconcileError extends Error {
  readonly reason: string;
  readonly severity: 'Error' | 'Warning' | 'Info';
  readonly retry: ErrorAction;
  constructor(
    message: string,
    opts: {
      reason: string;
      severity?: 'Error' | 'Warning' | 'Info';
      retry?: ErrorAction;
      cause?: unknown;
    },
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'ReconcileError';
    this.reason = opts.reason;
    this.severity = opts.severity ?? 'Warning';
    this.retry = opts.retry ?? 'backoff';
  }
}

/**
 * Invalid user input: logged, counted, recorded as a Warning Event on the object, and not retried
 * until the object (or something it watches) changes again.
 */
export class TerminalError extends ReconcileError {
  constructor(message: string, opts: { reason?: string; cause?: unknown } = {}) {
    super(message, {
      reason: opts.reason ?? 'InvalidSpec',
      severity: 'Error',
      retry: 'terminal',
      cause: opts.cause,
    });
    this.name = 'TerminalError';
  }
}

/**
 * Decides the retry of a failed reconcile; `undefined` falls back to the default policy
 * (`defaultErrorPolicy`).
 */
export type ErrorPolicy<T extends KubeObject = KubeObject> = (
  err: unknown,
  obj: T,
) => ErrorAction | undefined;

/** A `ReconcileError` says its own retry; anything else (API trouble, bugs) backs off. */
export function defaultErrorPolicy(err: unknown): ErrorAction {
  return err instanceof ReconcileError ? err.retry : 'backoff';
}
