import { ensurePodDisruptionBudget } from '@stackops/lib-common/openstack';
import type { StepResult } from '@stackops/lib-common/pipeline';
import { childNames, placementServiceLabels } from '../../resources/names.js';
import type { PlacementApiPass } from '../context.js';

/**
 * The API Deployment's PodDisruptionBudget (maxUnavailable 1) while there are several replicas, so
 * that a drain never evicts the last ready API pod; deleted again at one replica (ADR 0041).
 */
export async function ensurePdb(ctx: PlacementApiPass): Promise<StepResult> {
  const name = ctx.cr.metadata.name ?? '';
  await ensurePodDisruptionBudget(ctx, {
    name: childNames(name).deployment,
    namespace: ctx.cr.metadata.namespace ?? '',
    selector: placementServiceLabels(name),
    replicas: ctx.cr.spec.replicas,
  });
  return undefined;
}
