import { ConditionType } from '@stackops/lib-common/conditions';
import { inputHash } from '@stackops/lib-common/objects';
import type { StepResult } from '@stackops/lib-common/pipeline';
import { HASH_INPUT } from '../../api/constants.js';
import type { PlacementApiPass } from '../context.js';

/**
 * Combines the input hashes (Secret values, rendered config) into `status.hash.input`, which the
 * pods carry as CONFIG_HASH: any change of an input rolls them. Upstream ends the reconcile when
 * the hash changed and waits for the status update to come back; here the reconcile goes on with
 * the new hash (the status is written at the end either way), which saves a round trip.
 */
export function recordInputHash(ctx: PlacementApiPass): StepResult {
  const { hash, hashes } = inputHash(ctx.status.hash, ctx.inputs, HASH_INPUT);
  Object.assign(ctx.status.hash, hashes);
  ctx.configHash = hash;
  ctx.conditions.markTrue(ConditionType.ServiceConfigReady);
  return undefined;
}
