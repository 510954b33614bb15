import { KeystoneKinds } from '../../../api/group.js';
import { findKeystoneAPI } from '../../dependants/keystone-api-access.js';
import { releaseParent } from '../../dependants/parents.js';
import { apiFinalizer, type KeystoneServicePass } from '../context.js';

/** Last on deletion: `openstack.org/keystoneservice-<name>` comes off the KeystoneAPI. */
export async function releaseKeystoneAPI(ctx: KeystoneServicePass) {
  const api = findKeystoneAPI(ctx.cache, ctx.cr.metadata.namespace ?? '');
  await releaseParent(ctx.client, KeystoneKinds.KeystoneAPI, api, apiFinalizer(ctx));
  return undefined;
}
