import { ConditionType, messagesOf, Reason, Severity } from '@stackops/lib-common/conditions';
import { getNetworkAttachments, networksAnnotation } from '@stackops/lib-common/resources';
import { REQUEUE_MISSING_MS, type ReconcileState, type StepIo, type StepResult, stop } from '../state.js';

/** Requested networks: `networkAttachments` plus the upstream README's misspelt `networkAttachents`. */
export function requestedNetworks(spec: {
  networkAttachments?: string[];
  networkAttachents?: string[];
}): string[] {
  return [...new Set([...(spec.networkAttachments ?? []), ...(spec.networkAttachents ?? [])])];
}

/**
 * Looks up the requested NetworkAttachmentDefinitions and builds the pods' multus annotation
 * (`[]` when none). A missing NAD is named in NetworkAttachmentsReady and checked again later.
 */
export async function reconcileNetworkAttachments(s: ReconcileState, io: StepIo): Promise<StepResult> {
  s.networkAttachments = requestedNetworks(s.cr.spec);
  const { nads, missing } =
    s.networkAttachments.length > 0
      ? await getNetworkAttachments(io.client, s.cr.metadata.namespace!, s.networkAttachments)
      : { nads: [], missing: [] };
  if (missing.length > 0) {
    s.conditions.markFalse(
      ConditionType.NetworkAttachmentsReady,
      Reason.Error,
      Severity.Warning,
      messagesOf(ConditionType.NetworkAttachmentsReady)?.waiting ?? '%s',
      missing.join(', '),
    );
    return stop(REQUEUE_MISSING_MS);
  }
  s.podAnnotations = networksAnnotation(nads);
  return undefined;
}
