import {
  desiredKeystoneEndpoint,
  desiredKeystoneService,
  type KeystoneEndpoint,
  KeystoneKinds,
  type KeystoneService,
} from '@stackops/keystone-operator';
import type { KindRef, KubeObject } from '@stackops/lib-common/client';
import { Conditions, ConditionType } from '@stackops/lib-common/conditions';
import { applyOwned } from '@stackops/lib-common/objects';
import type { StepResult } from '@stackops/lib-common/pipeline';
import { holdFinalizer } from '@stackops/lib-common/runtime';
import {
  PLACEMENT_API_FINALIZER,
  PLACEMENT_SERVICE_DESCRIPTION,
  PLACEMENT_SERVICE_NAME,
  PLACEMENT_SERVICE_TYPE,
} from '../../api/constants.js';
import { placementServiceLabels } from '../../resources/names.js';
import type { PlacementApiPass } from '../context.js';

interface SubResource extends KubeObject {
  status?: { conditions?: unknown; observedGeneration?: number };
}

/**
 * Applies a keystone child (owned by the PlacementAPI), puts the PlacementAPI's finalizer on it
 * (so it is not unregistered behind placement's back), and mirrors its conditions into `condition`.
 * The finalizer is added with a JSON Patch rather than through apply, so that the keystone
 * controllers' own finalizers never make the object look out of date.
 */
async function applyAndMirror(
  ctx: PlacementApiPass,
  kind: KindRef,
  desired: KubeObject,
  condition: string,
): Promise<void> {
  const namespace = ctx.cr.metadata.namespace!;
  const name = desired.metadata.name!;
  let live: SubResource;
  try {
    ({ object: live } = await applyOwned<SubResource>(ctx.client, ctx.cr, kind, desired, {
      current: ctx.cache.get<SubResource>(kind, { name, namespace }) ?? null,
    }));
  } catch (err) {
    ctx.conditions.markError(condition, err instanceof Error ? err.message : String(err));
    throw err;
  }
  // keystone-operator edits the same finalizer list and writes the status: only the list is tested.
  if (!live.metadata.finalizers?.includes(PLACEMENT_API_FINALIZER)) {
    live = (await holdFinalizer(ctx.client, kind, live, PLACEMENT_API_FINALIZER)) ?? live;
  }
  const sub = Conditions.from(live.status?.conditions);
  if (sub.size === 0) return; // not reconciled by keystone-operator yet: stays Unknown/Init
  const observed = live.status?.observedGeneration;
  if (observed !== undefined && observed !== live.metadata.generation) {
    ctx.conditions.markRequested(condition, `${kind.kind} ${name} not yet reconciled for its current spec`);
    return;
  }
  ctx.conditions.set(sub.mirror(condition));
}

/**
 * Once the Deployment is ready: KeystoneService `placement` (service, user and its roles in
 * keystone) and KeystoneEndpoint `placement` (the internal and public URLs), mirrored into
 * KeystoneServiceReady and KeystoneEndpointReady.
 */
export async function registerInKeystone(ctx: PlacementApiPass): Promise<StepResult> {
  const { cr } = ctx;
  const namespace = cr.metadata.namespace!;
  const labels = placementServiceLabels(cr.metadata.name!);
  const service: KeystoneService = desiredKeystoneService({
    name: PLACEMENT_SERVICE_NAME,
    namespace,
    labels,
    spec: {
      serviceType: PLACEMENT_SERVICE_TYPE,
      serviceName: PLACEMENT_SERVICE_NAME,
      serviceDescription: PLACEMENT_SERVICE_DESCRIPTION,
      enabled: true,
      serviceUser: cr.spec.serviceUser,
      secret: cr.spec.secret,
      passwordSelector: cr.spec.passwordSelectors.service,
    },
  });
  const endpoint: KeystoneEndpoint = desiredKeystoneEndpoint({
    name: PLACEMENT_SERVICE_NAME,
    namespace,
    labels,
    spec: { serviceName: PLACEMENT_SERVICE_NAME, endpoints: { ...ctx.status.apiEndpoints } },
  });
  // Both at once: the endpoint names the service by name, and keystone-operator waits for it.
  await Promise.all([
    applyAndMirror(ctx, KeystoneKinds.KeystoneService, service, ConditionType.KeystoneServiceReady),
    applyAndMirror(ctx, KeystoneKinds.KeystoneEndpoint, endpoint, ConditionType.KeystoneEndpointReady),
  ]);
  return undefined;
}
