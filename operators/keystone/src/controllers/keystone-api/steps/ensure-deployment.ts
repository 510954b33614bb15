import { Kinds } from '@stackops/lib-common/client';
import { ConditionType } from '@stackops/lib-common/conditions';
import { isDeploymentReady, observedReadyReplicas, withPodPlacement } from '@stackops/lib-common/openstack';
import type { StepResult } from '@stackops/lib-common/pipeline';
import { buildKeystoneDeployment } from '../../../resources/deployment.js';
import { applyChild } from '../apply.js';
import { type KeystoneApiPass, specForPods } from '../context.js';
import { verifyNetworks } from './resolve-networks.js';

/**
 * The `keystone` Deployment with `CONFIG_HASH` (and the Topology's placement, if one is named); once the controller observed it,
 * `readyCount` and `region` are reported; network attachments are verified on the pods; then
 * DeploymentReady is True when every replica is updated and ready (0 replicas count as ready).
 */
export async function ensureDeployment(ctx: KeystoneApiPass): Promise<StepResult> {
  const desired = withPodPlacement(
    buildKeystoneDeployment(
      ctx.cr,
      specForPods(ctx),
      ctx.configHash ?? '',
      ctx.podAnnotations ?? {},
      ctx.federationFilenames ?? [],
    ),
    ctx.topology,
  );
  let live: typeof desired;
  try {
    live = await applyChild(ctx, Kinds.Deployment, desired);
  } catch (err) {
    ctx.conditions.markError(ConditionType.DeploymentReady, err);
    throw err;
  }
  const ready = observedReadyReplicas(live);
  if (ready !== undefined) {
    ctx.status.readyCount = ready;
    ctx.status.region = ctx.spec.region;
  }
  const networks = await verifyNetworks(ctx);
  if (networks) return networks;
  if (isDeploymentReady(live)) ctx.conditions.markTrue(ConditionType.DeploymentReady);
  else ctx.conditions.markRequested(ConditionType.DeploymentReady);
  return undefined;
}
