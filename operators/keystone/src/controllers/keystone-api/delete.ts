import { KeystoneFinalizers } from '../../api/finalizers.js';
import { KeystoneKinds } from '../../api/group.js';
import type { StepContext, StepResult } from './context.js';
import { stop } from './context.js';
import { removeFinalizer } from './finalizers.js';

/**
 * Deletion: wait while a KeystoneService or KeystoneEndpoint still holds its finalizer on the
 * KeystoneAPI (they unregister from keystone first, or only drop their finalizers when the whole
 * KeystoneAPI goes away, so a namespace deletion never hangs); then drop ours. Owned objects are
 * garbage-collected through their owner references. The database itself is kept (ADR 0005).
 */
export async function reconcileDelete(ctx: StepContext): Promise<StepResult> {
  const others = (ctx.cr.metadata.finalizers ?? []).filter((f) => f !== KeystoneFinalizers.KeystoneAPI);
  if (others.length > 0 && !ctx.spec.externalKeystoneAPI) {
    ctx.log?.info({ waitingFor: others }, 'waiting for dependants to release the KeystoneAPI');
    return stop();
  }
  await removeFinalizer(ctx.client, KeystoneKinds.KeystoneAPI, ctx.cr, KeystoneFinalizers.KeystoneAPI);
  return stop();
}
