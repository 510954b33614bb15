import { isDeepStrictEqual } from 'node:util';
import type { NetworkAddonsConfigStatus } from '../api/network-addons-config.js';
import { ConditionType } from './conditions.js';

/**
 * A rollout's progress message changes with every DaemonSet status update: on N nodes that is
 * O(N) updates per DaemonSet, each a status write of the NetworkAddonsConfig if written as it
 * comes. A change that is only the Progressing message is written at most once per this interval;
 * a change of any condition's status or reason, or of any other field, is written at once.
 */
export const PROGRESS_MESSAGE_INTERVAL_MS = 1000;

export interface PacedStatus {
  status: NetworkAddonsConfigStatus;
  /** Set when the new message was held back: the pass wakes after this long to write it. */
  heldForMs?: number;
}

const withProgressMessage = (
  status: NetworkAddonsConfigStatus,
  message: string | undefined,
): NetworkAddonsConfigStatus => ({
  ...status,
  conditions: (status.conditions ?? []).map((c) => {
    if (c.type !== ConditionType.Progressing) return c;
    const { message: _dropped, ...rest } = c;
    return message === undefined ? rest : { ...rest, message };
  }),
});

/**
 * `next` as it is to be written, given the written status `before` and when the last status
 * change was written (`lastWriteMs`, undefined when not known): when the only difference is the
 * Progressing message while Progressing stays True, and the last write is younger than the
 * interval, the written message is kept and `heldForMs` says when the new one is due.
 */
export function paceProgressMessage(
  before: NetworkAddonsConfigStatus | undefined,
  next: NetworkAddonsConfigStatus,
  lastWriteMs: number | undefined,
  nowMs: number,
  intervalMs = PROGRESS_MESSAGE_INTERVAL_MS,
): PacedStatus {
  if (!before || lastWriteMs === undefined) return { status: next };
  const sinceMs = nowMs - lastWriteMs;
  if (sinceMs >= intervalMs) return { status: next };
  const progressing = (s: NetworkAddonsConfigStatus) =>
    s.conditions?.find((c) => c.type === ConditionType.Progressing);
  const was = progressing(before);
  const now = progressing(next);
  if (was?.status !== 'True' || now?.status !== 'True' || was.message === now.message)
    return { status: next };
  const held = withProgressMessage(next, was.message);
  if (!isDeepStrictEqual(held, before)) return { status: next };
  return { status: held, heldForMs: intervalMs - sinceMs };
}
