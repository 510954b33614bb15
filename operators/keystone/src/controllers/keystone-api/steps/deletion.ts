import { removeFinalizer } from '@stackops/lib-common/runtime';
import { KeystoneFinalizers } from '../../../api/finalizers.js';
import { KeystoneKinds } from '../../../api/group.js';
import { type KeystoneApiPass, type StepResult, stop } from '../context.js';

/**
 * Deletion: wait while a KeystoneService or KeystoneEndpoint still holds its finalizer on the
 * KeystoneAPI (they unregister from keystone first, or only drop their finalizers when the whole
 * KeystoneAPI goes away, so a namespace deletion never hangs); then drop ours. Owned objects are
 * garbage-collected through their owner references. The database itself is kept (ADR 0005).
 */
export async function deletionStep(ctx: KeystoneApiPass): Promise<StepResult> {
  const others = (ctx.cr.metadata.finalizers ?? []).filter((f) => f !== KeystoneFinalizers.KeystoneAPI);
  if (others.length > 0 && !ctx.spec.externalKeystoneAPI) {
    ctx.log.info({ waitingFor: others }, 'waiting for dependants to release the KeystoneAPI');
    return stop();
  }
  await removeFinalizer(ctx.client, KeystoneKinds.KeystoneAPI, ctx.cr, KeystoneFinalizers.KeystoneAPI);
  return stop();
}
