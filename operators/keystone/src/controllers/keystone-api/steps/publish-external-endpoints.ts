import { ConditionType } from '@stackops/lib-common/conditions';
import { type StepResult, stop } from '@stackops/lib-common/pipeline';
import { ENDPOINT_TYPES } from '../../../resources/services.js';
import type { KeystoneApiPass } from '../context.js';

/**
 * External mode: keystone runs elsewhere; publish the `override.service.<type>.endpointURL`s as
 * `status.apiEndpoints` (the CRD already refuses a spec without them) and the region.
 */
export async function publishExternalEndpoints(ctx: KeystoneApiPass): Promise<StepResult> {
  const overrides = ctx.cr.spec.override?.service ?? {};
  const endpoints: Record<string, string> = {};
  for (const type of ENDPOINT_TYPES) {
    const url = overrides[type]?.endpointURL;
    if (!url) {
      ctx.conditions.markError(
        ConditionType.InputReady,
        `external Keystone API requires endpointURL to be set for ${type} endpoint`,
      );
      return stop();
    }
    endpoints[type] = url;
  }
  ctx.status.apiEndpoints = endpoints;
  ctx.status.region = ctx.spec.region;
  ctx.status.readyCount = 0;
  ctx.conditions.markTrue(ConditionType.InputReady);
  return undefined;
}
