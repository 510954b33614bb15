import { Kinds, type KubeObject } from '@stackops/lib-common/client';
import { ConditionType } from '@stackops/lib-common/conditions';
import {
  labelSelector,
  markNetworkAttachmentsCondition,
  type NetworkAttachmentDefinition,
  networksAnnotation,
  verifyNetworkStatus,
} from '@stackops/lib-common/openstack';
import { type StepResult, stop } from '@stackops/lib-common/pipeline';
import { keystoneServiceLabels } from '../../../resources/names.js';
import { type KeystoneApiPass, RECHECK_AFTER_MS } from '../context.js';

/**
 * The NetworkAttachmentDefinitions named in `networkAttachments` exist; their multus annotation
 * goes on every pod template (`[]` when none). NADs are read from the API server: their CRD may not
 * even be installed, so there is no informer for them.
 */
export async function resolveNetworks(ctx: KeystoneApiPass): Promise<StepResult> {
  const ns = ctx.cr.metadata.namespace ?? '';
  const nads: NetworkAttachmentDefinition[] = [];
  for (const name of ctx.spec.networkAttachments) {
    const nad = await ctx.client.get<NetworkAttachmentDefinition>(Kinds.NetworkAttachmentDefinition, {
      name,
      namespace: ns,
    });
    if (!nad) {
      ctx.conditions.markFalse(
        ConditionType.NetworkAttachmentsReady,
        'Error',
        'Warning',
        'NetworkAttachment resources missing: %s',
        name,
      );
      return stop(RECHECK_AFTER_MS);
    }
    nads.push(nad);
  }
  try {
    ctx.podAnnotations = networksAnnotation(nads);
  } catch (err) {
    ctx.conditions.markError(ConditionType.NetworkAttachmentsReady, err);
    return stop();
  }
  return undefined;
}

/** The Deployment's live pods; the Jobs' pods carry the same labels but do not serve the API. */
const isApiPod = (pod: KubeObject): boolean =>
  pod.metadata.deletionTimestamp === undefined &&
  (pod.metadata.ownerReferences ?? []).some((o) => o.kind === 'ReplicaSet');

/**
 * Part of the Deployment step: every requested network has an IP on each ready pod (from the
 * pods' network-status); `status.networkAttachments` lists them. Not ready ends the pass. Pods
 * are not cached (an informer over every pod is too much for this): read only when needed.
 */
export async function verifyNetworks(ctx: KeystoneApiPass): Promise<StepResult> {
  const ns = ctx.cr.metadata.namespace ?? '';
  const pods =
    ctx.spec.networkAttachments.length === 0
      ? []
      : (
          await ctx.client.list<KubeObject>(Kinds.Pod, {
            namespace: ns,
            labelSelector: labelSelector(keystoneServiceLabels(ctx.cr)),
          })
        ).items;
  const verdict = verifyNetworkStatus({
    requested: ctx.spec.networkAttachments,
    namespace: ns,
    pods: pods.filter(isApiPod),
    readyCount: ctx.status.readyCount ?? 0,
  });
  ctx.status.networkAttachments = verdict.networkAttachments;
  markNetworkAttachmentsCondition(ctx.conditions, verdict);
  // pods are not owned by the KeystoneAPI, so their updates do not wake it: look again soon
  return verdict.ready ? undefined : stop(RECHECK_AFTER_MS);
}
