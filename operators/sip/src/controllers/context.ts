import type { ReconcileContext } from '@stackops/lib-common/runtime';
import type { ReadyReason } from '../api/constants.js';

/** What a SIPCluster reconcile uses from the runtime: the client, the informer cache, Events and a logger. */
export type StepContext = Pick<ReconcileContext, 'client' | 'cache' | 'recorder' | 'log'>;

export type FailureSeverity = 'Error' | 'Warning';

/**
 * A step that cannot complete: Ready becomes False with `reason`, and an Event of `event` is
 * recorded. `Error` severity is invalid user input (fixed by the user; retried slowly and when
 * the inputs change); `Warning` is something that may resolve by itself (not enough free hosts,
 * a conflict) and is retried sooner.
 */
export class StepFailure extends Error {
  override readonly name = 'StepFailure';
  constructor(
    readonly reason: ReadyReason,
    readonly severity: FailureSeverity,
    readonly event: string,
    message: string,
    cause?: unknown,
  ) {
    super(message, cause === undefined ? undefined : { cause });
  }
}
