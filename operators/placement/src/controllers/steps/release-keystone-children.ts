import { KeystoneKinds } from '@stackops/keystone-operator';
import type { KubeObject } from '@stackops/lib-common/client';
import { releaseFinalizer } from '@stackops/lib-common/runtime';
import { PLACEMENT_API_FINALIZER, PLACEMENT_SERVICE_NAME } from '../../api/constants.js';
import type { PlacementApiPass } from '../context.js';

/**
 * Deletion (upstream `reconcileDelete`): this operator's finalizer comes off the KeystoneEndpoint
 * and KeystoneService `placement` (the pipeline then takes it off the PlacementAPI). Everything
 * else it created is owned by it and goes with it through garbage collection — including the
 * keystone children, whose own controllers then remove the endpoints, service and user from keystone.
 */
export async function releaseKeystoneChildren(ctx: PlacementApiPass) {
  const namespace = ctx.cr.metadata.namespace ?? '';
  for (const kind of [KeystoneKinds.KeystoneEndpoint, KeystoneKinds.KeystoneService]) {
    const child = ctx.cache.get<KubeObject>(kind, { name: PLACEMENT_SERVICE_NAME, namespace });
    if (!child?.metadata.finalizers?.includes(PLACEMENT_API_FINALIZER)) continue;
    await releaseFinalizer(ctx.client, kind, child, PLACEMENT_API_FINALIZER);
  }
  return undefined;
}
