import { ensurePodDisruptionBudget } from '@stackops/lib-common/openstack';
import type { StepResult } from '@stackops/lib-common/pipeline';
import { KeystoneNames, keystoneServiceLabels } from '../../../resources/names.js';
import type { KeystoneApiPass } from '../context.js';

/**
 * The `keystone` PodDisruptionBudget (maxUnavailable 1) while there are several replicas, so that a
 * drain never evicts the last ready API pod; deleted again at one replica (ADR 0041).
 */
export async function ensurePdb(ctx: KeystoneApiPass): Promise<StepResult> {
  await ensurePodDisruptionBudget(ctx, {
    name: KeystoneNames.deployment,
    namespace: ctx.cr.metadata.namespace ?? '',
    selector: keystoneServiceLabels(ctx.cr),
    replicas: ctx.spec.replicas,
  });
  return undefined;
}
