import type { OpenshiftCondition } from '../api/network-addons-config.js';

/** The condition types this operator reports (config.openshift.io ClusterOperator style). */
export const ConditionType = {
  Available: 'Available',
  Progressing: 'Progressing',
  Degraded: 'Degraded',
} as const;

type ConditionStatus = 'True' | 'False' | 'Unknown';

export interface DesiredCondition {
  type: string;
  status: ConditionStatus;
  reason?: string;
  message?: string;
}

/**
 * Sets one condition without a heartbeat: status, reason and message are replaced, and
 * `lastTransitionTime` changes only when the status does. Returns a new list (order kept, a new type
 * appended).
 */
export function setCondition(
  conditions: readonly OpenshiftCondition[],
  desired: DesiredCondition,
  now: string,
): OpenshiftCondition[] {
  const next: OpenshiftCondition = {
    type: desired.type,
    status: desired.status,
    ...(desired.reason ? { reason: desired.reason } : {}),
    ...(desired.message ? { message: desired.message } : {}),
  };
  const existing = conditions.find((c) => c.type === desired.type);
  if (!existing) return [...conditions, { ...next, lastTransitionTime: now }];
  const lastTransitionTime =
    existing.status === desired.status && existing.lastTransitionTime ? existing.lastTransitionTime : now;
  return conditions.map((c) => (c.type === desired.type ? { ...next, lastTransitionTime } : c));
}

export const findCondition = (
  conditions: readonly OpenshiftCondition[] | undefined,
  type: string,
): OpenshiftCondition | undefined => conditions?.find((c) => c.type === type);

/** Drops a condition type (upstream removes the legacy `Failing` condition on every write). */
export const removeCondition = (
  conditions: readonly OpenshiftCondition[],
  type: string,
): OpenshiftCondition[] => conditions.filter((c) => c.type !== type);
