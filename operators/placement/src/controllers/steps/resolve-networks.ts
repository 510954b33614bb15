import { ConditionType, messagesOf, Reason, Severity } from '@stackops/lib-common/conditions';
import { getNetworkAttachments, networksAnnotation } from '@stackops/lib-common/openstack';
import { type StepResult, stop } from '@stackops/lib-common/pipeline';
import { type PlacementApiPass, RECHECK_AFTER_MS } from '../context.js';

/** Requested networks: `networkAttachments` plus the upstream README's misspelt `networkAttachents`. */
function requestedNetworks(spec: { networkAttachments?: string[]; networkAttachents?: string[] }): string[] {
  return [...new Set([...(spec.networkAttachments ?? []), ...(spec.networkAttachents ?? [])])];
}

/**
 * Looks up the requested NetworkAttachmentDefinitions and builds the pods' multus annotation
 * (`[]` when none). A missing NAD is named in NetworkAttachmentsReady and checked again later.
 */
export async function resolveNetworks(ctx: PlacementApiPass): Promise<StepResult> {
  ctx.networkAttachments = requestedNetworks(ctx.cr.spec);
  const { nads, missing } =
    ctx.networkAttachments.length > 0
      ? await getNetworkAttachments(ctx.client, ctx.cr.metadata.namespace!, ctx.networkAttachments)
      : { nads: [], missing: [] };
  if (missing.length > 0) {
    ctx.conditions.markFalse(
      ConditionType.NetworkAttachmentsReady,
      Reason.Error,
      Severity.Warning,
      messagesOf(ConditionType.NetworkAttachmentsReady)?.waiting ?? '%s',
      missing.join(', '),
    );
    return stop(RECHECK_AFTER_MS);
  }
  ctx.podAnnotations = networksAnnotation(nads);
  return undefined;
}
