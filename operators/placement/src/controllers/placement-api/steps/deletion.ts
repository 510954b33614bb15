import { KeystoneKinds } from '@stackops/keystone-operator';
import { isNotFound, type KubeObject } from '@stackops/lib-common/client';
import { removeFinalizer } from '@stackops/lib-common/runtime';
import { PLACEMENT_API_FINALIZER, PLACEMENT_SERVICE_NAME } from '../../../api/constants.js';
import { PlacementAPIKind } from '../../../api/kinds.js';
import type { PlacementApiPass, StepResult } from '../context.js';

/** An object already gone needs no finalizer removed. */
async function ignoreNotFound(p: Promise<unknown>): Promise<void> {
  try {
    await p;
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
}

/**
 * Deletion (upstream `reconcileDelete`): take this operator's finalizer off the KeystoneEndpoint
 * and KeystoneService `placement`, then off the PlacementAPI. Everything else it created is owned
 * by it and goes with it through garbage collection — including the keystone children, whose own
 * controllers then remove the endpoints, service and user from keystone.
 */
export async function deletionStep(ctx: PlacementApiPass): Promise<StepResult> {
  const namespace = ctx.cr.metadata.namespace!;
  for (const kind of [KeystoneKinds.KeystoneEndpoint, KeystoneKinds.KeystoneService]) {
    const child = ctx.cache.get<KubeObject>(kind, { name: PLACEMENT_SERVICE_NAME, namespace });
    if (child?.metadata.finalizers?.includes(PLACEMENT_API_FINALIZER)) {
      await ignoreNotFound(removeFinalizer(ctx.client, kind, child, PLACEMENT_API_FINALIZER));
    }
  }
  if (ctx.cr.metadata.finalizers?.includes(PLACEMENT_API_FINALIZER)) {
    await ignoreNotFound(removeFinalizer(ctx.client, PlacementAPIKind, ctx.cr, PLACEMENT_API_FINALIZER));
  }
  return undefined;
}
