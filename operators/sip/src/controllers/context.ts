import type { KubeClient } from '@stackops/lib-common/resources';
import type { CacheReader, EventRecorder } from '@stackops/lib-common/runtime';
import type { Logger } from 'pino';
import type { ReadyReason } from '../api/constants.js';

/** What a SIPCluster reconcile uses from the runtime: the client, the informer cache, Events and a logger. */
export interface StepContext {
  client: KubeClient;
  cache: CacheReader;
  recorder: EventRecorder;
  log: Logger;
}

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
