import { Conditions, ConditionType } from '@stackops/lib-common/conditions';
import { stop } from '@stackops/lib-common/pipeline';
import { type KeystoneEndpointPass, namedService } from '../context.js';

/** Upstream: 5 s while the KeystoneService is missing, 10 s while it is not ready. */
const SERVICE_MISSING_RECHECK_MS = 5_000;
const SERVICE_NOT_READY_RECHECK_MS = 10_000;

const isReady = (conds: { type: string; status: string }[] | undefined) =>
  conds?.some((c) => c.type === ConditionType.Ready && c.status === 'True') ?? false;

/**
 * The KeystoneService named by `spec.serviceName` is Ready with a registered service ID; its state
 * is mirrored into KeystoneServiceReady. A KeystoneService being deleted is taking its catalog
 * service (and endpoints) with it, so it counts as not ready.
 */
export async function waitForKeystoneService(ctx: KeystoneEndpointPass) {
  const service = namedService(ctx);
  if (!service) return stop(SERVICE_MISSING_RECHECK_MS);
  const mirrored = Conditions.from(service.status?.conditions).mirror(ConditionType.KeystoneServiceReady);
  if (mirrored) ctx.conditions.set(mirrored);
  if (
    !isReady(service.status?.conditions) ||
    !service.status?.serviceID ||
    service.metadata.deletionTimestamp
  ) {
    return stop(SERVICE_NOT_READY_RECHECK_MS);
  }
  ctx.service = service;
  ctx.status.serviceID = service.status.serviceID;
  return undefined;
}
