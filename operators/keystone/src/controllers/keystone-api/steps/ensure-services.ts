import { Kinds, type KubeObject } from '@stackops/lib-common/client';
import { ConditionType } from '@stackops/lib-common/conditions';
import { apiEndpointURL, endpointProtocol, loadBalancerState } from '@stackops/lib-common/openstack';
import { type StepResult, stop } from '@stackops/lib-common/pipeline';
import type { ServiceEndpointType } from '../../../api/common.js';
import { buildKeystoneService, ENDPOINT_TYPES, effectiveOverride } from '../../../resources/services.js';
import { applyChild } from '../apply.js';
import type { KeystoneApiPass } from '../context.js';

/**
 * Services `<cr>-internal` and `<cr>-public` (port 5000, overrides applied) and the URLs
 * published in `status.apiEndpoints` (`https://` for an endpoint with a TLS certificate). A LoadBalancer without an address yet ends the pass with
 * CreateServiceReady False; the Service's status update brings the reconcile back.
 */
export async function ensureServices(ctx: KeystoneApiPass): Promise<StepResult> {
  const endpoints: Record<string, string> = {};
  // Both at once: neither needs the other.
  let applied: { endpoint: ServiceEndpointType; desired: KubeObject; live: KubeObject }[];
  try {
    applied = await Promise.all(
      ENDPOINT_TYPES.map(async (endpoint) => {
        const desired = buildKeystoneService(ctx.cr, endpoint);
        return { endpoint, desired, live: await applyChild(ctx, Kinds.Service, desired) };
      }),
    );
  } catch (err) {
    ctx.conditions.markError(ConditionType.CreateServiceReady, err);
    throw err;
  }
  for (const { endpoint, desired, live } of applied) {
    const lb = loadBalancerState(live);
    if (lb.pending) {
      ctx.conditions.markError(ConditionType.CreateServiceReady, lb.message);
      return stop();
    }
    endpoints[endpoint] = apiEndpointURL({
      service: desired,
      endpointURL: effectiveOverride(ctx.cr, endpoint)?.endpointURL,
      protocol: endpointProtocol(ctx.spec.tls, endpoint),
    });
  }
  ctx.status.apiEndpoints = endpoints;
  ctx.conditions.markTrue(ConditionType.CreateServiceReady);
  return undefined;
}
