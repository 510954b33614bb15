import { holdFinalizer } from '@stackops/lib-common/runtime';
import { KeystoneKinds } from '../../../api/group.js';
import { apiFinalizer, type KeystoneServicePass } from '../context.js';

/**
 * `openstack.org/keystoneservice-<name>` on the KeystoneAPI, so Keystone outlives the registration.
 * Only put there with Keystone ready: a KeystoneService being deleted (whose pass never gets here)
 * must not put it back after releasing it.
 */
export async function holdKeystoneAPI(ctx: KeystoneServicePass) {
  if (!ctx.api) throw new Error('holdKeystoneAPI runs after checkKeystoneAPI');
  await holdFinalizer(ctx.client, KeystoneKinds.KeystoneAPI, ctx.api, apiFinalizer(ctx));
  return undefined;
}
