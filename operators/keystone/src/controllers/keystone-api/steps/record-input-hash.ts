import { ConditionType } from '@stackops/lib-common/conditions';
import { inputHash } from '@stackops/lib-common/objects';
import type { StepResult } from '@stackops/lib-common/pipeline';
import { type KeystoneApiPass, SOON_MS } from '../context.js';

/**
 * The input hash over every input (upstream's pattern): when it changed, store it and end this
 * pass, so the next one rolls the pods with a hash that is stable.
 */
export async function recordInputHash(ctx: KeystoneApiPass): Promise<StepResult> {
  const { hash, changed, hashes } = inputHash(ctx.status.hash, ctx.inputs);
  ctx.configHash = hash;
  if (changed) {
    ctx.status.hash = hashes;
    return { stop: true, requeueAfterMs: SOON_MS };
  }
  ctx.conditions.markTrue(ConditionType.ServiceConfigReady);
  return undefined;
}
