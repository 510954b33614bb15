import { Kinds } from '../client/kinds.js';
import type { KubeObject } from '../client/types.js';
import { ConditionType } from '../conditions/index.js';
import { applyOwned } from '../objects/apply.js';
import { controllerOf } from '../objects/owner.js';
import type { Pass } from '../pipeline/pipeline.js';

/** The API Deployment a PodDisruptionBudget protects. */
export interface PodDisruptionBudgetInput {
  /** The budget's name (the Deployment's). */
  name: string;
  namespace: string;
  /** The Deployment's pod selector. */
  selector: Record<string, string>;
  /** The Deployment's replicas. */
  replicas: number;
}

/**
 * Whether the API Deployment gets a budget: only with more than one replica. With one, any budget
 * that keeps it would forbid every eviction and block node drains for good.
 */
export const wantsPodDisruptionBudget = (replicas: number): boolean => replicas > 1;

/**
 * A policy/v1 PodDisruptionBudget allowing one pod of the API down at a time (voluntary
 * disruptions: drains, evictions), or undefined when the Deployment has one replica or none.
 */
export function buildPodDisruptionBudget(input: PodDisruptionBudgetInput): KubeObject | undefined {
  if (!wantsPodDisruptionBudget(input.replicas)) return undefined;
  return {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name: input.name, namespace: input.namespace, labels: { ...input.selector } },
    spec: { maxUnavailable: 1, selector: { matchLabels: { ...input.selector } } },
  };
}

/**
 * The step body for an API Deployment's budget: applied (owned by the CR, so it goes with it) and
 * PDBReady True when replicas > 1; otherwise a budget the CR owns is deleted (scaling down to one
 * replica) and PDBReady is not reported (leave it out of the initial conditions for one replica).
 * The controller must own PodDisruptionBudgets so the cache holds them.
 */
export async function ensurePodDisruptionBudget(
  ctx: Pass<KubeObject, object>,
  input: PodDisruptionBudgetInput,
): Promise<void> {
  const ref = { name: input.name, namespace: input.namespace };
  const current = ctx.cache.get<KubeObject>(Kinds.PodDisruptionBudget, ref) ?? null;
  const desired = buildPodDisruptionBudget(input);
  try {
    if (desired) await applyOwned(ctx.client, ctx.cr, Kinds.PodDisruptionBudget, desired, { current });
    else if (current && controllerOf(current)?.uid === ctx.cr.metadata.uid)
      await ctx.client.delete(Kinds.PodDisruptionBudget, ref);
  } catch (err) {
    if (desired) ctx.conditions.markError(ConditionType.PDBReady, err);
    throw err;
  }
  if (desired) ctx.conditions.markTrue(ConditionType.PDBReady);
}
