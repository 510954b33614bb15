import { SIP_HOST_LABELS } from '../api/constants.js';
import { type ClusterRef, claimLabels } from './claims.js';
import type { Host, RoleSchedule } from './schedule.js';

/** One host whose SIP labels must change: `set` the three labels for a role, or remove them (`set` undefined). */
export interface LabelChange {
  host: Host;
  set: Record<string, string> | undefined;
}

/** The label writes that make the hosts' labels say what a successful schedule decided (none when they already do). */
export function labelChanges(
  cluster: ClusterRef,
  roles: readonly RoleSchedule[],
  released: readonly Host[],
): LabelChange[] {
  const changes: LabelChange[] = [];
  for (const r of roles) {
    const want = claimLabels(cluster, r.role);
    for (const host of r.hosts) {
      if (Object.entries(want).some(([k, v]) => host.labels[k] !== v)) changes.push({ host, set: want });
    }
  }
  for (const host of released) {
    if (SIP_HOST_LABELS.some((k) => Object.hasOwn(host.labels, k))) changes.push({ host, set: undefined });
  }
  return changes;
}

/** The host's labels after a change. */
export function applyLabelChange(
  labels: Readonly<Record<string, string>>,
  set: Record<string, string> | undefined,
) {
  const out: Record<string, string> = { ...labels };
  for (const k of SIP_HOST_LABELS) delete out[k];
  return set ? { ...out, ...set } : out;
}
