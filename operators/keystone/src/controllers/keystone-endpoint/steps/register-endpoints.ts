import { KeystoneConditionTypes, KeystoneMessages } from '../../../api/conditions.js';
import { reconcileCatalogEndpoints } from '../../../registration/endpoints.js';
import { markFailed } from '../../dependants/conditions.js';
import { endpointsSpec, type KeystoneEndpointPass } from '../context.js';

/** Upstream's message: `[internal:http://… public:http://…]`, sorted. */
export function endpointsSummary(endpoints: readonly { interface: string; url: string }[]): string {
  return `[${endpoints
    .map((e) => `${e.interface}:${e.url}`)
    .sort()
    .join(' ')}]`;
}

/**
 * One endpoint per interface of `spec.endpoints` in the KeystoneAPI's region for the service
 * (KeystoneServiceOSEndpointsReady); `status.endpointIDs` and `status.endpoints` record them.
 */
export async function registerEndpoints(ctx: KeystoneEndpointPass) {
  const type = KeystoneConditionTypes.KeystoneServiceOSEndpointsReady;
  if (!ctx.identity) throw new Error('registerEndpoints runs after connectAdminClient');
  try {
    const registered = await reconcileCatalogEndpoints(ctx.identity, endpointsSpec(ctx), ctx.changes);
    ctx.status.endpointIDs = registered.endpointIDs;
    ctx.status.endpoints = registered.endpoints;
  } catch (err) {
    markFailed(ctx.conditions, type, KeystoneMessages.KeystoneServiceOSEndpointsReadyError, err);
    throw err;
  }
  ctx.conditions.markTrue(
    type,
    KeystoneMessages.KeystoneServiceOSEndpointsReady,
    endpointsSummary(ctx.status.endpoints ?? []),
  );
  return undefined;
}
