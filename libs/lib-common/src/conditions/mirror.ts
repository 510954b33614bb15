import { ConditionStatus, ConditionType, Severity } from './catalog.js';
import { type Condition, compareConditionTypes, normalizeCondition, trueCondition } from './condition.js';

/**
 * Priority of a condition when several compete to be summarised (lower wins):
 * 0 False/Error, 1 False/Warning, 2 False/Info, 3 False without severity, 4 Unknown, 5 True.
 * Upstream ranks a False without severity after True (its "anything else" group); a False must
 * never lose to a True, so stackops ranks it after the other Falses instead.
 */
export function priorityGroup(c: Condition): number {
  if (c.status === ConditionStatus.False) {
    switch (c.severity ?? Severity.None) {
      case Severity.Error:
        return 0;
      case Severity.Warning:
        return 1;
      case Severity.Info:
        return 2;
      default:
        return 3;
    }
  }
  return c.status === ConditionStatus.Unknown ? 4 : 5;
}

function timeOf(c: Condition): number {
  const t = Date.parse(c.lastTransitionTime);
  return Number.isNaN(t) ? Number.NEGATIVE_INFINITY : t;
}

/**
 * Total order used by `mirror` (first = wins): lower priority group; then the latest
 * lastTransitionTime; then — the deterministic tie-break upstream lacks — any condition other
 * than `Ready` before `Ready`, then ascending type name.
 */
export function compareByPriority(a: Condition, b: Condition): number {
  return (
    priorityGroup(a) - priorityGroup(b) ||
    timeOf(b) - timeOf(a) ||
    Number(a.type === ConditionType.Ready) - Number(b.type === ConditionType.Ready) ||
    compareConditionTypes(a.type, b.type)
  );
}

/** The winner of `compareByPriority` between two conditions. */
export function higherPriority(a: Condition, b: Condition): Condition {
  return compareByPriority(a, b) <= 0 ? a : b;
}

/**
 * Summarises a list of conditions into one condition of type `targetType`:
 * - empty list → undefined;
 * - a `Ready` True in the list → True with Ready's message and time (everything else is ignored:
 *   a sub-resource that reports itself Ready is Ready);
 * - otherwise the highest-priority condition (see `compareByPriority`), copied under the new type
 *   with its status, reason, severity, message and lastTransitionTime.
 */
export function mirrorConditions(
  conditions: readonly Condition[],
  targetType: string,
): Condition | undefined {
  const ready = conditions.find((c) => c.type === ConditionType.Ready && c.status === ConditionStatus.True);
  if (ready) return normalizeCondition(trueCondition(targetType, ready.message), ready.lastTransitionTime);
  const [winner] = [...conditions].sort(compareByPriority);
  return winner ? normalizeCondition({ ...winner, type: targetType }, winner.lastTransitionTime) : undefined;
}
