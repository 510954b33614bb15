import { describe, expect, it } from 'vitest';
import { PROGRESS_MESSAGE_INTERVAL_MS, paceProgressMessage } from './progress-pace.js';
import { computeStatus, type Outcome } from './status.js';

const T0 = '2026-01-01T00:00:00Z';
const T1 = '2026-01-01T00:00:01Z';
const versions = { operatorVersion: '1.0.0', generation: 1 };
const container = { parentKind: 'DaemonSet', parentName: 'multus', name: 'kube-multus', image: 'm:1' };
const progressing = (...messages: string[]) => ({
  kind: 'applied' as const,
  progressing: messages,
  containers: [container],
});
const NOT_SCHEDULED = 'DaemonSet "ns/multus" is not yet scheduled on any nodes';
const AWAITING = 'DaemonSet "ns/multus" is not available (awaiting 1 nodes)';

/** The status written when the rollout began, and the one a later pass computes. */
const written = computeStatus(undefined, progressing(NOT_SCHEDULED), versions, T0).status;
const next = (outcome: Outcome) => computeStatus(written, outcome, versions, T1).status;
const message = (s: { conditions?: { type: string; message?: string }[] }) =>
  s.conditions?.find((c) => c.type === 'Progressing')?.message;

describe('paceProgressMessage', () => {
  it('holds a new progress message back while the last write is younger than the interval, and says when it is due', () => {
    const paced = paceProgressMessage(written, next(progressing(AWAITING)), 10_000, 10_300);
    expect(paced.status).toEqual(written);
    expect(paced.heldForMs).toBe(PROGRESS_MESSAGE_INTERVAL_MS - 300);
  });

  it('writes the new message once the interval has passed', () => {
    const paced = paceProgressMessage(
      written,
      next(progressing(AWAITING)),
      10_000,
      10_000 + PROGRESS_MESSAGE_INTERVAL_MS,
    );
    expect(message(paced.status)).toBe(AWAITING);
    expect(paced.heldForMs).toBeUndefined();
  });

  it('writes at once what is more than the message: the rollout done, a failure, another field', () => {
    const done = next({ kind: 'applied', progressing: [], containers: [container] });
    expect(paceProgressMessage(written, done, 10_000, 10_001)).toEqual({ status: done });
    const failing = next({ ...progressing(AWAITING), failing: ['pod multus-x: CrashLoopBackOff'] });
    expect(paceProgressMessage(written, failing, 10_000, 10_001)).toEqual({ status: failing });
    const otherContainers = computeStatus(
      written,
      { ...progressing(AWAITING), containers: [{ ...container, image: 'm:2' }] },
      versions,
      T1,
    ).status;
    expect(paceProgressMessage(written, otherContainers, 10_000, 10_001)).toEqual({
      status: otherContainers,
    });
  });

  it('writes at once when nothing was written before or the time of the last write is not known', () => {
    const first = next(progressing(AWAITING));
    expect(paceProgressMessage(undefined, first, 10_000, 10_001)).toEqual({ status: first });
    expect(paceProgressMessage(written, first, undefined, 10_001)).toEqual({ status: first });
  });
});
