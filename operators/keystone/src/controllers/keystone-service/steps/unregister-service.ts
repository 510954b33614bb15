import { deleteOwnedService, deleteOwnedUsers } from '../../../registration/service.js';
import { type KeystoneServicePass, serviceOwnership } from '../context.js';

/**
 * On deletion: its user (by recorded ID and by name; role assignments go with it) and its catalog
 * service (endpoints go with it), each only if this KeystoneService owns it — a refused or sharing
 * KeystoneService deletes nothing in Keystone.
 */
export async function unregisterService(ctx: KeystoneServicePass) {
  if (!ctx.identity) throw new Error('unregisterService runs after connectAdminClient');
  const { owner } = serviceOwnership(ctx);
  const ids = ctx.status.userID ? [ctx.status.userID] : [];
  await deleteOwnedUsers(ctx.identity, { ids, names: [ctx.cr.spec.serviceUser] }, owner, ctx.changes);
  await deleteOwnedService(ctx.identity, ctx.status.serviceID ?? '', owner, ctx.changes);
  ctx.status.serviceID = '';
  ctx.status.userID = '';
  return undefined;
}
