import { Kinds } from '@stackops/lib-common/client';
import { ConditionType } from '@stackops/lib-common/conditions';
import { apiEndpointURL, endpointProtocol, loadBalancerState } from '@stackops/lib-common/openstack';
import { type StepResult, stop } from '@stackops/lib-common/pipeline';
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
  for (const endpoint of ENDPOINT_TYPES) {
    const desired = buildKeystoneService(ctx.cr, endpoint);
    let live: typeof desired;
    try {
      live = await applyChild(ctx, Kinds.Service, desired);
    } catch (err) {
      ctx.conditions.markError(ConditionType.CreateServiceReady, err);
      throw err;
    }
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
