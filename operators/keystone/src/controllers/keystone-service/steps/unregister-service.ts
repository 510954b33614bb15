import { deleteServiceRegistration } from '../../../registration/service.js';
import { type KeystoneServicePass, SERVICE_USER_ANNOTATION } from '../context.js';

/** On deletion: the users (current and recorded name; their role assignments go with them) and the catalog service. */
export async function unregisterService(ctx: KeystoneServicePass) {
  if (!ctx.identity) throw new Error('unregisterService runs after connectAdminClient');
  const recorded = ctx.cr.metadata.annotations?.[SERVICE_USER_ANNOTATION];
  await deleteServiceRegistration(
    ctx.identity,
    {
      serviceId: ctx.status.serviceID ?? '',
      usernames: [ctx.cr.spec.serviceUser, ...(recorded ? [recorded] : [])],
    },
    ctx.changes,
  );
  ctx.status.serviceID = '';
  return undefined;
}
