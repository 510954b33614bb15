import { endpointFinalizerOnParents } from '../../api/finalizers.js';
import { KeystoneKinds } from '../../api/group.js';
import type { KeystoneEndpoint, KeystoneEndpointStatus } from '../../api/keystone-endpoint.js';
import type { KeystoneService } from '../../api/keystone-service.js';
import type { EndpointsSpec } from '../../registration/endpoints.js';
import type { DependantPass } from '../dependants/context.js';
import { ownershipOf } from '../dependants/ownership.js';

export type KeystoneEndpointPassStatus = KeystoneEndpointStatus & { endpointIDs: Record<string, string> };

/** A KeystoneEndpoint pass: the dependants' pass plus the KeystoneService it names, once Ready. */
export interface KeystoneEndpointPass extends DependantPass<KeystoneEndpoint, KeystoneEndpointPassStatus> {
  service?: KeystoneService;
}

/** `openstack.org/keystoneendpoint-<name>`, held on the KeystoneAPI and on the KeystoneService. */
export const parentFinalizer = (ctx: KeystoneEndpointPass): string =>
  endpointFinalizerOnParents(ctx.cr.metadata.name ?? '');

/** The KeystoneService named by `spec.serviceName`, from the cache. */
export const namedService = (ctx: KeystoneEndpointPass): KeystoneService | undefined =>
  ctx.cache.get<KeystoneService>(KeystoneKinds.KeystoneService, {
    namespace: ctx.cr.metadata.namespace ?? '',
    name: ctx.cr.spec.serviceName,
  });

/** What the catalog registration needs: the service, the region, the wanted and the recorded endpoints. */
export const endpointsSpec = (ctx: KeystoneEndpointPass): EndpointsSpec => {
  const { owner, adopt } = ownershipOf(ctx, 'KeystoneEndpoint');
  return {
    serviceId: ctx.status.serviceID ?? '',
    serviceName: ctx.cr.spec.serviceName,
    region: ctx.region ?? '',
    desired: ctx.cr.spec.endpoints,
    recorded: ctx.status.endpointIDs,
    owner,
    adopt,
  };
};
