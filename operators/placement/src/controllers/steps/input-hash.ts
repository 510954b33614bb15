import { ConditionType } from '@stackops/lib-common/conditions';
import { inputHash } from '@stackops/lib-common/resources';
import { HASH_INPUT } from '../../api/constants.js';
import type { ReconcileState, StepResult } from '../state.js';

/**
 * Combines the input hashes (Secret values, rendered config) into `status.hash.input`, which the
 * pods carry as CONFIG_HASH: any change of an input rolls them. Upstream ends the reconcile when
 * the hash changed and waits for the status update to come back; here the reconcile goes on with
 * the new hash (the status is written at the end either way), which saves a round trip.
 */
export function reconcileInputHash(s: ReconcileState): StepResult {
  const { hash, hashes } = inputHash(s.status.hash, s.inputHashes, HASH_INPUT);
  Object.assign(s.status.hash, hashes);
  s.configHash = hash;
  s.conditions.markTrue(ConditionType.ServiceConfigReady);
  return undefined;
}
