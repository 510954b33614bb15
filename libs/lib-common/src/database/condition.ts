import { ConditionType } from '../conditions/catalog.js';
import type { Conditions } from '../conditions/conditions.js';

/** Where the database step stands, as the reconciler saw it. */
export type DbCreateState =
  /** The MariaDB Service named by `databaseInstance` does not exist (yet). */
  | { state: 'waitingForService'; service: string }
  /** The db-create Job was created or is still running. */
  | { state: 'running' }
  /** The Job failed; `message` is the runner's text (never a secret value). */
  | { state: 'failed'; message: string }
  /** The Job succeeded for the current inputs (or already had). */
  | { state: 'completed' };

/**
 * Sets DBReady like upstream: True "DB create completed"; running → False/Requested/Info
 * "DB create job still running"; failure → False/Error/Warning "DB create job error occurred …".
 * A missing database Service is a wait (Info), named in the message, not an error.
 */
export function setDbReadyCondition(conditions: Conditions, s: DbCreateState): void {
  const type = ConditionType.DBReady;
  switch (s.state) {
    case 'completed':
      conditions.markTrue(type);
      return;
    case 'running':
      conditions.markRequested(type);
      return;
    case 'waitingForService':
      conditions.markRequested(type, 'DB create waiting for the database Service %s', s.service);
      return;
    case 'failed':
      conditions.markError(type, s.message);
      return;
  }
}
