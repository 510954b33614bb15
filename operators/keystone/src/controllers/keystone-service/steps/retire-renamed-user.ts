import { KeystoneKinds } from '../../../api/group.js';
import type { KeystoneService } from '../../../api/keystone-service.js';
import { deleteUserNamed } from '../../../registration/service.js';
import { type KeystoneServicePass, SERVICE_USER_ANNOTATION } from '../context.js';

/**
 * Once the user of `spec.serviceUser` is in place: the user registered under a previous name is
 * deleted (upstream leaves it behind), and the current name recorded in an annotation (one
 * metadata write, only when it changed).
 */
export async function retireRenamedUser(ctx: KeystoneServicePass) {
  const current = ctx.cr.spec.serviceUser;
  const recorded = ctx.cr.metadata.annotations?.[SERVICE_USER_ANNOTATION];
  if (recorded === current) return undefined;
  if (!ctx.identity) throw new Error('retireRenamedUser runs after connectAdminClient');
  if (recorded) await deleteUserNamed(ctx.identity, recorded, ctx.changes);
  const ref = { namespace: ctx.cr.metadata.namespace ?? '', name: ctx.cr.metadata.name ?? '' };
  const patch = { metadata: { annotations: { [SERVICE_USER_ANNOTATION]: current } } };
  ctx.cr = await ctx.client.patch<KeystoneService>(KeystoneKinds.KeystoneService, ref, patch, 'merge');
  return undefined;
}
