import { KeystoneKinds } from '../../../api/group.js';
import { findKeystoneAPI } from '../../dependants/keystone-api-access.js';
import { releaseParent } from '../../dependants/parents.js';
import { type KeystoneEndpointPass, namedService, parentFinalizer } from '../context.js';

/** Last on deletion: `openstack.org/keystoneendpoint-<name>` comes off the KeystoneService and the KeystoneAPI. */
export async function releaseParents(ctx: KeystoneEndpointPass) {
  await releaseParent(ctx.client, KeystoneKinds.KeystoneService, namedService(ctx), parentFinalizer(ctx));
  const api = findKeystoneAPI(ctx.cache, ctx.cr.metadata.namespace ?? '');
  await releaseParent(ctx.client, KeystoneKinds.KeystoneAPI, api, parentFinalizer(ctx));
  return undefined;
}
