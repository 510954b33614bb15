import { Kinds, type KubeObject } from '@stackops/lib-common/client';
import { ConditionType } from '@stackops/lib-common/conditions';
import { applyOwned } from '@stackops/lib-common/objects';
import {
  isDeploymentReady,
  labelSelector,
  markNetworkAttachmentsCondition,
  observedReadyReplicas,
  verifyNetworkStatus,
  withPodPlacement,
} from '@stackops/lib-common/openstack';
import { type StepResult, stop } from '@stackops/lib-common/pipeline';
import { placementDeployment } from '../../resources/deployment.js';
import { childNames, placementServiceLabels } from '../../resources/names.js';
import { apiImage, type PlacementApiPass, RECHECK_AFTER_MS } from '../context.js';

/**
 * A pod of the Deployment that stays: Job pods carry the same labels and leaving pods still show
 * their addresses, and neither must count for the networks.
 */
const isServingPod = (pod: KubeObject): boolean =>
  !pod.metadata.deletionTimestamp &&
  pod.metadata.ownerReferences?.some((r) => r.controller === true && r.kind === 'ReplicaSet') === true;

/**
 * Applies the Deployment (CONFIG_HASH = the input hash; a Topology's placement), then reports from its status: readyCount
 * once the current generation is observed, the pods' addresses on the requested networks, and
 * DeploymentReady when every replica is updated and ready. Until then the reconcile ends here; the
 * Deployment watch brings it back.
 */
export async function ensureDeployment(ctx: PlacementApiPass): Promise<StepResult> {
  const { cr } = ctx;
  const namespace = cr.metadata.namespace!;
  const desired = withPodPlacement(
    placementDeployment(cr, {
      image: apiImage(ctx),
      configHash: ctx.configHash ?? '',
      podAnnotations: ctx.podAnnotations,
    }),
    ctx.topology,
  );
  let live: KubeObject;
  try {
    ({ object: live } = await applyOwned(ctx.client, cr, Kinds.Deployment, desired, {
      current:
        ctx.cache.get(Kinds.Deployment, { name: childNames(cr.metadata.name!).deployment, namespace }) ??
        null,
    }));
  } catch (err) {
    ctx.conditions.markError(ConditionType.DeploymentReady, err instanceof Error ? err.message : String(err));
    throw err;
  }
  const ready = observedReadyReplicas(live);
  if (ready !== undefined) ctx.status.readyCount = ready;

  const network = verifyNetworkStatus({
    requested: ctx.networkAttachments,
    namespace,
    // Pods are not cached (an informer over every pod is too much for this); read only when needed.
    pods:
      ctx.networkAttachments.length > 0
        ? (
            await ctx.client.list(Kinds.Pod, {
              namespace,
              labelSelector: labelSelector(placementServiceLabels(cr.metadata.name!)),
            })
          ).items.filter(isServingPod)
        : [],
    readyCount: ctx.status.readyCount ?? 0,
  });
  ctx.status.networkAttachments = network.networkAttachments;
  markNetworkAttachmentsCondition(ctx.conditions, network);
  // Pods are not watched: multus may report their addresses after they became ready.
  if (!network.ready) return stop(RECHECK_AFTER_MS);

  if (!isDeploymentReady(live)) {
    ctx.conditions.markRequested(ConditionType.DeploymentReady);
    return stop();
  }
  ctx.conditions.markTrue(ConditionType.DeploymentReady);
  return undefined;
}
