import { ConditionType } from '@stackops/lib-common/conditions';
import { inputHash } from '@stackops/lib-common/objects';
import type { StepResult } from '@stackops/lib-common/pipeline';
import type { KeystoneApiPass } from '../context.js';

/**
 * The input hash over every input (upstream's pattern): when it changed it is stored in
 * `status.hash.input` and the pods roll with it. Upstream ends the reconcile here and waits for the
 * status update to come back; this pass goes on with the new hash (the status is written at the end
 * of the pass either way, also when a later step fails), which saves a pass and a status write.
 */
export function recordInputHash(ctx: KeystoneApiPass): StepResult {
  const { hash, changed, hashes } = inputHash(ctx.status.hash, ctx.inputs);
  ctx.configHash = hash;
  if (changed) ctx.status.hash = hashes;
  ctx.conditions.markTrue(ConditionType.ServiceConfigReady);
  return undefined;
}
