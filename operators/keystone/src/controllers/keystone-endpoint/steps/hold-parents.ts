import { holdFinalizer } from '@stackops/lib-common/runtime';
import { KeystoneKinds } from '../../../api/group.js';
import { type KeystoneEndpointPass, parentFinalizer } from '../context.js';

/** `openstack.org/keystoneendpoint-<name>` on the KeystoneAPI and the KeystoneService while the endpoints exist. */
export async function holdParents(ctx: KeystoneEndpointPass) {
  if (!ctx.api || !ctx.service) throw new Error('holdParents runs after waitForKeystoneService');
  await holdFinalizer(ctx.client, KeystoneKinds.KeystoneAPI, ctx.api, parentFinalizer(ctx));
  await holdFinalizer(ctx.client, KeystoneKinds.KeystoneService, ctx.service, parentFinalizer(ctx));
  return undefined;
}
