import { KeystoneConditionTypes, KeystoneMessages } from '../../../api/conditions.js';
import { isNotOwned } from '../../../registration/ownership.js';
import { ensureCatalogService } from '../../../registration/service.js';
import { markFailed } from '../../dependants/conditions.js';
import { refuse } from '../../dependants/ownership.js';
import { type KeystoneServicePass, serviceOwnership } from '../context.js';

/**
 * The catalog service `{type, name, description, enabled}` (KeystoneServiceOSServiceReady), owned by
 * this KeystoneService; its ID goes to `status.serviceID`. A service of another CR, or one that
 * existed before and is not adopted, is refused.
 */
export async function registerCatalogService(ctx: KeystoneServicePass) {
  const type = KeystoneConditionTypes.KeystoneServiceOSServiceReady;
  const spec = ctx.cr.spec;
  if (!ctx.identity) throw new Error('registerCatalogService runs after connectAdminClient');
  try {
    const service = await ensureCatalogService(
      ctx.identity,
      {
        type: spec.serviceType,
        name: spec.serviceName,
        description: spec.serviceDescription,
        enabled: spec.enabled,
      },
      ctx.status.serviceID || undefined,
      serviceOwnership(ctx),
      ctx.changes,
    );
    ctx.status.serviceID = service.id;
    ctx.conditions.markTrue(
      type,
      KeystoneMessages.KeystoneServiceOSServiceReady,
      spec.serviceName,
      service.id,
    );
  } catch (err) {
    if (isNotOwned(err)) return refuse(ctx, type, err);
    markFailed(ctx.conditions, type, KeystoneMessages.KeystoneServiceOSServiceReadyError, err);
    throw err;
  }
  return undefined;
}
