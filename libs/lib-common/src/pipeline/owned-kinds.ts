import { type KindRef, Kinds } from '../client/kinds.js';
import type { KubeObject } from '../client/types.js';
import type { ControllerBuilder } from '../runtime/controller.js';
import { deploymentReadinessChanged, jobOutcomeChanged } from '../runtime/predicates.js';

/**
 * `builder.owns(kind)` for each of `kinds` with the filters a pipeline's owned objects want: of
 * Secrets only its own are cached (`ownSecretsSelector`, a label every Secret it creates carries),
 * so the operator never lists every Secret of the cluster; of Jobs and Deployments only what
 * decides their outcome or readiness wakes the owner (not each pod started or counted).
 */
export function ownsPipelineKinds<T extends KubeObject>(
  builder: ControllerBuilder<T>,
  kinds: readonly KindRef[],
  ownSecretsSelector: string,
): ControllerBuilder<T> {
  for (const kind of kinds)
    builder = builder.owns(
      kind,
      kind === Kinds.Secret
        ? { labelSelector: ownSecretsSelector }
        : kind === Kinds.Job
          ? { predicates: [jobOutcomeChanged] }
          : kind === Kinds.Deployment
            ? { predicates: [deploymentReadinessChanged] }
            : {},
    );
  return builder;
}
