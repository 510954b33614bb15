import { type ServiceEndpointType, ServiceEndpointTypes } from '@stackops/keystone-operator';
import { Kinds, type KubeObject } from '@stackops/lib-common/client';
import { ConditionType } from '@stackops/lib-common/conditions';
import { applyOwned } from '@stackops/lib-common/objects';
import {
  apiEndpointURL,
  buildEndpointService,
  endpointProtocol,
  loadBalancerState,
} from '@stackops/lib-common/openstack';
import { type StepResult, stop } from '@stackops/lib-common/pipeline';
import { PLACEMENT_API_PORT, PLACEMENT_SERVICE_NAME } from '../../api/constants.js';
import { placementServiceLabels, serviceName } from '../../resources/names.js';
import { type PlacementApiPass, RECHECK_AFTER_MS } from '../context.js';

/**
 * Services `placement-internal` and `placement-public` on 8778 with `override.service` merged in,
 * and the endpoint URLs (`http(s)://placement-<type>.<ns>.svc:8778`, https when that endpoint has a
 * TLS certificate, or the override's endpointURL).
 * A LoadBalancer Service without an address yet is reported and looked at again later.
 */
export async function ensureServices(ctx: PlacementApiPass): Promise<StepResult> {
  const { cr } = ctx;
  const namespace = cr.metadata.namespace!;
  const labels = placementServiceLabels(cr.metadata.name!);
  const apiEndpoints: Record<string, string> = {};
  // Both at once: neither needs the other.
  let applied: { endpoint: ServiceEndpointType; desired: KubeObject; live: KubeObject }[];
  try {
    applied = await Promise.all(
      [...ServiceEndpointTypes].sort().map(async (endpoint) => {
        const desired = buildEndpointService({
          name: PLACEMENT_SERVICE_NAME,
          endpoint,
          namespace,
          labels,
          selector: labels,
          port: PLACEMENT_API_PORT,
          override: cr.spec.override?.service?.[endpoint],
        });
        const { object: live } = await applyOwned(ctx.client, cr, Kinds.Service, desired, {
          current: ctx.cache.get(Kinds.Service, { name: serviceName(endpoint), namespace }) ?? null,
        });
        return { endpoint, desired, live };
      }),
    );
  } catch (err) {
    ctx.conditions.markError(
      ConditionType.CreateServiceReady,
      err instanceof Error ? err.message : String(err),
    );
    throw err;
  }
  for (const { endpoint, desired, live } of applied) {
    const lb = loadBalancerState(live);
    if (lb.pending) {
      ctx.conditions.markError(ConditionType.CreateServiceReady, lb.message);
      return stop(RECHECK_AFTER_MS);
    }
    apiEndpoints[endpoint] = apiEndpointURL({
      service: desired,
      endpointURL: cr.spec.override?.service?.[endpoint]?.endpointURL,
      protocol: endpointProtocol(cr.spec.tls, endpoint),
    });
  }
  ctx.status.apiEndpoints = apiEndpoints;
  ctx.conditions.markTrue(ConditionType.CreateServiceReady);
  return undefined;
}
