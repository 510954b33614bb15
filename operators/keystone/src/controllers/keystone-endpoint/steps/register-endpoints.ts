import { stop } from '@stackops/lib-common/pipeline';
import { KeystoneConditionTypes, KeystoneMessages } from '../../../api/conditions.js';
import { type RegisteredEndpoints, reconcileCatalogEndpoints } from '../../../registration/endpoints.js';
import { describeOwner, isNotOwned, isOwnedBy, NotOwnedError } from '../../../registration/ownership.js';
import { markFailed } from '../../dependants/conditions.js';
import { refuse } from '../../dependants/ownership.js';
import { endpointsSpec, type KeystoneEndpointPass } from '../context.js';

/** A service missing from Keystone is re-created by its KeystoneService (on its own resync). */
const SERVICE_MISSING_RECHECK_MS = 10_000;

/** `interface:url` of each endpoint, sorted: the items of upstream's `[internal:http://… public:http://…]`. */
export function endpointsSummary(endpoints: readonly { interface: string; url: string }[]): string[] {
  return endpoints.map((e) => `${e.interface}:${e.url}`).sort();
}

/**
 * One endpoint per interface of `spec.endpoints` in the KeystoneAPI's region for the service
 * (KeystoneServiceOSEndpointsReady), owned by this KeystoneEndpoint; `status.endpointIDs` and
 * `status.endpoints` record them. Only a service owned by the KeystoneService it names gets endpoints;
 * endpoints of another CR, or ones that existed before (not adopted), are refused.
 */
export async function registerEndpoints(ctx: KeystoneEndpointPass) {
  const type = KeystoneConditionTypes.KeystoneServiceOSEndpointsReady;
  if (!ctx.identity) throw new Error('registerEndpoints runs after connectAdminClient');
  const spec = endpointsSpec(ctx);
  const registered: RegisteredEndpoints = { endpointIDs: {}, endpoints: [] };
  try {
    const service = await ctx.identity.services.get(spec.serviceId);
    if (!service) {
      markFailed(
        ctx.conditions,
        type,
        KeystoneMessages.KeystoneServiceOSEndpointsReadyError,
        `service ${spec.serviceId} is not in Keystone`,
      );
      return stop(SERVICE_MISSING_RECHECK_MS);
    }
    const serviceOwner = {
      kind: 'KeystoneService',
      namespace: spec.owner.namespace,
      name: spec.serviceName,
    } as const;
    if (!isOwnedBy(service, serviceOwner)) {
      throw new NotOwnedError(
        `service "${service.name ?? ''}" (${service.id})`,
        'KeystoneEndpoint',
        `it is not owned by ${describeOwner(serviceOwner)}`,
      );
    }
    await reconcileCatalogEndpoints(ctx.identity, spec, ctx.changes, registered);
    ctx.status.endpointIDs = registered.endpointIDs;
    ctx.status.endpoints = registered.endpoints;
  } catch (err) {
    // What was created before the failure is recorded, so a deletion still removes it.
    ctx.status.endpointIDs = { ...ctx.status.endpointIDs, ...registered.endpointIDs };
    if (isNotOwned(err)) return refuse(ctx, type, err);
    markFailed(ctx.conditions, type, KeystoneMessages.KeystoneServiceOSEndpointsReadyError, err);
    throw err;
  }
  // One argument per endpoint, so a condition cuts a long URL, never the list after it.
  const items = endpointsSummary(ctx.status.endpoints ?? []);
  const list = `[${items.map(() => '%s').join(' ')}]`;
  ctx.conditions.markTrue(
    type,
    KeystoneMessages.KeystoneServiceOSEndpointsReady.replace('%s', list),
    ...items,
  );
  return undefined;
}
