import type { KubeObject } from '../client/types.js';
import type { Predicate } from '../runtime/predicates.js';

/**
 * The annotation that stops reconciling one object (maintenance, a restore), as upstream
 * lib-common names it. Its presence pauses, whatever its value: `""`, `"true"` and even `"false"`
 * pause alike, as upstream reads it, so a manifest written for upstream behaves the same here.
 */
export const PAUSED_ANNOTATION = 'openstack.org/paused';

/** The condition a paused object carries (True), and the reason of it and of its Event. */
export const PAUSED_CONDITION = 'Paused';

/** The Event reason when the annotation goes and reconciling starts again. */
export const RESUMED_REASON = 'Resumed';

export const isPaused = (obj: KubeObject): boolean =>
  obj.metadata.annotations?.[PAUSED_ANNOTATION] !== undefined;

/**
 * For a primary watch that passes only some updates (e.g. `generationChanged`): also the ones that
 * set or removed the annotation, so that pausing and resuming take effect at once.
 */
export const pausedChanged: Predicate = (e) => e.type !== 'update' || isPaused(e.old) !== isPaused(e.obj);

export const PAUSED_MESSAGE = `Reconciling paused: the object carries the ${PAUSED_ANNOTATION} annotation (any value pauses); nothing is written until it is removed`;

interface RawCondition {
  type?: unknown;
  lastTransitionTime?: unknown;
}

const conditionsOf = (status: unknown): RawCondition[] => {
  const list = (status as { conditions?: unknown } | undefined)?.conditions;
  return Array.isArray(list) ? (list as RawCondition[]) : [];
};

/** Whether a status carries the Paused condition (a pass after the annotation went must drop it). */
export const hasPausedCondition = (status: unknown): boolean =>
  conditionsOf(status).some((c) => c?.type === PAUSED_CONDITION);

/**
 * The status without the Paused condition: what the steps of a resumed pass start from, so that no
 * operator's own status code has to know about it (and the pass's write drops it).
 */
export function withoutPausedCondition<S>(status: S): S {
  if (!hasPausedCondition(status)) return status;
  const list = conditionsOf(status).filter((c) => c?.type !== PAUSED_CONDITION);
  return { ...(status as object), conditions: list } as S;
}

/**
 * The status of a paused object: the previous one untouched (conditions, observedGeneration and
 * every operator field stay as the last pass left them: they still describe what is deployed),
 * plus the Paused condition. Only the fields every condition schema has (no severity: a True
 * condition has none), so the API server stores it as written and the next paused pass finds it equal.
 */
export function pausedStatus<S>(previous: S | undefined, now: Date): S {
  const kept = conditionsOf(previous).find((c) => c?.type === PAUSED_CONDITION);
  const since =
    typeof kept?.lastTransitionTime === 'string'
      ? kept.lastTransitionTime
      : now.toISOString().replace(/\.\d+Z$/, 'Z');
  const others = conditionsOf(previous).filter((c) => c?.type !== PAUSED_CONDITION);
  const paused = {
    type: PAUSED_CONDITION,
    status: 'True',
    reason: PAUSED_CONDITION,
    message: PAUSED_MESSAGE,
    lastTransitionTime: since,
  };
  return { ...((previous ?? {}) as object), conditions: [...others, paused] } as S;
}
