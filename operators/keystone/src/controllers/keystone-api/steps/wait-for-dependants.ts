import { stop } from '@stackops/lib-common/pipeline';
import { KeystoneFinalizers } from '../../../api/finalizers.js';
import type { KeystoneApiPass } from '../context.js';

/**
 * Deletion waits while a KeystoneService or KeystoneEndpoint still holds its finalizer on the
 * KeystoneAPI: they unregister from Keystone first (or only drop their finalizers when the whole
 * KeystoneAPI goes away, so a namespace deletion never hangs). An external KeystoneAPI runs
 * nothing here to wait for. Their finalizer updates bring the next pass.
 */
export async function waitForDependants(ctx: KeystoneApiPass) {
  const others = (ctx.cr.metadata.finalizers ?? []).filter((f) => f !== KeystoneFinalizers.KeystoneAPI);
  if (others.length > 0 && !ctx.spec.externalKeystoneAPI) {
    ctx.log.info({ waitingFor: others }, 'waiting for dependants to release the KeystoneAPI');
    return stop();
  }
  return undefined;
}
