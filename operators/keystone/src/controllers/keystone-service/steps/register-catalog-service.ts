import { KeystoneConditionTypes, KeystoneMessages } from '../../../api/conditions.js';
import { ensureCatalogService } from '../../../registration/service.js';
import { markFailed } from '../../dependants/conditions.js';
import type { KeystoneServicePass } from '../context.js';

/** The catalog service `{type, name, description, enabled}` (KeystoneServiceOSServiceReady); its ID goes to `status.serviceID`. */
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
    markFailed(ctx.conditions, type, KeystoneMessages.KeystoneServiceOSServiceReadyError, err);
    throw err;
  }
  return undefined;
}
