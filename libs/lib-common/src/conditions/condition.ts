import { ConditionStatus, Reason, Severity } from './catalog.js';

/** One status condition as stored in `status.conditions` (upstream lib-common's shape). */
export interface Condition {
  type: string;
  status: ConditionStatus;
  /** Omitted when empty (True and Unknown conditions). */
  severity?: Severity;
  reason?: string;
  message?: string;
  /** RFC 3339, UTC, whole seconds. */
  lastTransitionTime: string;
}

/** A condition to set; the time is stamped by the set when absent. */
export type ConditionInput = Omit<Condition, 'lastTransitionTime'> & { lastTransitionTime?: string };

/** RFC 3339 in UTC truncated to seconds, the precision the API server stores. */
export function formatTime(d: Date): string {
  return d.toISOString().replace(/\.\d+Z$/, 'Z');
}

export function trueCondition(type: string, message = ''): ConditionInput {
  return { type, status: ConditionStatus.True, reason: Reason.Ready, message };
}

export function falseCondition(
  type: string,
  reason: string,
  severity: Severity,
  message = '',
): ConditionInput {
  return { type, status: ConditionStatus.False, reason, severity, message };
}

export function unknownCondition(type: string, reason: string, message = ''): ConditionInput {
  return { type, status: ConditionStatus.Unknown, reason, message };
}

/** Same state = same type, status, reason, severity and message (times are ignored). */
export function hasSameState(a: ConditionInput, b: ConditionInput): boolean {
  return (
    a.type === b.type &&
    a.status === b.status &&
    (a.reason ?? '') === (b.reason ?? '') &&
    (a.severity ?? '') === (b.severity ?? '') &&
    (a.message ?? '') === (b.message ?? '')
  );
}

/** A failure (as opposed to "still in progress"): False with reason Error or BackoffLimitExceeded. */
export function isErrorCondition(c: ConditionInput | undefined): boolean {
  return (
    c !== undefined &&
    c.status === ConditionStatus.False &&
    (c.reason === Reason.Error || c.reason === Reason.BackoffLimitExceeded)
  );
}

/** The stored shape: fixed key order, empty optional fields left out, so equal states serialize equally. */
export function normalizeCondition(c: ConditionInput, lastTransitionTime: string): Condition {
  const out: Condition = { type: c.type, status: c.status } as Condition;
  if (c.severity) out.severity = c.severity;
  if (c.reason) out.reason = c.reason;
  if (c.message) out.message = c.message;
  out.lastTransitionTime = lastTransitionTime;
  return out;
}

const statuses = new Set<string>(Object.values(ConditionStatus));
const severities = new Set<string>(Object.values(Severity));

/**
 * Reads one condition from untrusted JSON (a CR's status). Entries without a type are dropped;
 * an unrecognised status reads as Unknown and an unrecognised severity as none, so a hand-edited
 * status cannot make Ready computation misbehave.
 */
export function parseCondition(raw: unknown): Condition | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const r = raw as Record<string, unknown>;
  if (typeof r['type'] !== 'string' || r['type'] === '') return undefined;
  const status = typeof r['status'] === 'string' && statuses.has(r['status']) ? r['status'] : 'Unknown';
  const severity =
    typeof r['severity'] === 'string' && severities.has(r['severity']) ? (r['severity'] as Severity) : '';
  return normalizeCondition(
    {
      type: r['type'],
      status: status as ConditionStatus,
      severity,
      reason: typeof r['reason'] === 'string' ? r['reason'] : '',
      message: typeof r['message'] === 'string' ? r['message'] : '',
    },
    typeof r['lastTransitionTime'] === 'string' ? r['lastTransitionTime'] : '',
  );
}

/** Upstream order: `Ready` first, then ascending by type (code-unit order, locale independent). */
export function compareConditionTypes(a: string, b: string): number {
  if (a === b) return 0;
  if (a === 'Ready') return -1;
  if (b === 'Ready') return 1;
  return a < b ? -1 : 1;
}
