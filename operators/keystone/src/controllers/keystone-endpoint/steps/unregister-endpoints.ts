import { deleteCatalogEndpoints } from '../../../registration/endpoints.js';
import { endpointsSpec, type KeystoneEndpointPass } from '../context.js';

/** On deletion: the endpoints of every interface in the spec or recorded in the status go. */
export async function unregisterEndpoints(ctx: KeystoneEndpointPass) {
  if (!ctx.identity) throw new Error('unregisterEndpoints runs after connectAdminClient');
  await deleteCatalogEndpoints(ctx.identity, endpointsSpec(ctx), ctx.changes);
  ctx.status.endpointIDs = {};
  ctx.status.endpoints = [];
  return undefined;
}
