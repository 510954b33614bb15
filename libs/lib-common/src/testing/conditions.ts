import type { KindRef } from '../client/kinds.js';
import type { KubeClient, KubeObject, ObjectRef } from '../client/types.js';
import type { FakeKubeClient } from './fake.js';
import { describeConditions, type WaitOptions, waitFor } from './wait.js';

/** A status condition as tests read it. */
export interface ConditionView {
  type: string;
  status: string;
  reason?: string;
  severity?: string;
  message?: string;
  lastTransitionTime?: string;
}

/** What a condition should be: every given field must match (a RegExp matches the message). */
export interface ExpectedCondition {
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  severity?: string;
  message?: string | RegExp;
}

/** The condition `type` of an object's `status.conditions` (undefined: no object or no such condition). */
export function conditionOf(obj: KubeObject | undefined, type: string): ConditionView | undefined {
  const list = (obj?.['status'] as { conditions?: ConditionView[] } | undefined)?.conditions;
  return list?.find((c) => c.type === type);
}

/** `conditionOf` for one object of a FakeKubeClient, read as the fake holds it at each call. */
export const fakeConditionOf =
  (kind: KindRef, ref: ObjectRef) =>
  (fake: FakeKubeClient, type: string): ConditionView | undefined =>
    conditionOf(fake.peek(kind, ref), type);

/** What differs between the condition `type` of `obj` and `expected` (empty: it matches). */
export function conditionProblems(
  obj: KubeObject | undefined,
  type: string,
  expected: ExpectedCondition,
): string[] {
  const c = conditionOf(obj, type);
  if (!c) return [`${type}: no such condition`];
  const problems: string[] = [];
  for (const field of ['status', 'reason', 'severity'] as const) {
    const want = expected[field];
    if (want !== undefined && c[field] !== want)
      problems.push(`${type}.${field} is ${c[field]}, not ${want}`);
  }
  const m = expected.message;
  if (m !== undefined && !(typeof m === 'string' ? c.message === m : m.test(c.message ?? '')))
    problems.push(`${type}.message is ${JSON.stringify(c.message)}, not ${String(m)}`);
  return problems;
}

/**
 * Asserts the condition `type` of `obj` (as upstream lib-common's `ExpectCondition`): throws with
 * every field that differs and the object's conditions, one a line.
 */
export function expectCondition<T extends KubeObject | undefined>(
  obj: T,
  type: string,
  expected: ExpectedCondition,
): T {
  const problems = conditionProblems(obj, type, expected);
  if (problems.length > 0) throw new Error(`${problems.join('; ')}\nconditions:\n${describeConditions(obj)}`);
  return obj;
}

/**
 * Polls the object until its condition `type` is as expected, and resolves with the object; on
 * timeout the error shows the object and its conditions.
 */
export async function waitForCondition<T extends KubeObject>(
  client: KubeClient,
  kind: KindRef,
  ref: ObjectRef,
  type: string,
  expected: ExpectedCondition,
  opts: WaitOptions = {},
): Promise<T> {
  const obj = await waitFor<T>(client, kind, ref, (o) => conditionProblems(o, type, expected).length === 0, {
    description: `${type} ${JSON.stringify(expected, (_k, v) => (v instanceof RegExp ? String(v) : v))}`,
    ...opts,
  });
  return obj as T;
}

/** Each condition type's expected state: a status, or every field that must match. */
export type ExpectedConditions = Record<string, ExpectedCondition['status'] | ExpectedCondition>;

/**
 * Polls the object until every condition in `want` is as expected (with `current`, only a status
 * whose observedGeneration is the object's generation counts: an older one says nothing about the
 * spec), and resolves with the object; on timeout the error shows the object and its conditions.
 */
export async function waitForConditions<T extends KubeObject>(
  client: KubeClient,
  kind: KindRef,
  ref: ObjectRef,
  want: ExpectedConditions,
  opts: WaitOptions & { current?: boolean } = {},
): Promise<T> {
  const { current, ...waitOpts } = opts;
  const expected = Object.entries(want).map(
    ([type, w]) => [type, typeof w === 'string' ? { status: w } : w] as const,
  );
  const matches = (o: T | undefined) =>
    o !== undefined &&
    (!current ||
      (o['status'] as { observedGeneration?: number } | undefined)?.observedGeneration ===
        o.metadata.generation) &&
    expected.every(([type, w]) => conditionProblems(o, type, w).length === 0);
  const obj = await waitFor<T>(client, kind, ref, matches, {
    description: `conditions ${JSON.stringify(want, (_k, v) => (v instanceof RegExp ? String(v) : v))}${current ? ' (current status)' : ''}`,
    ...waitOpts,
  });
  return obj as T;
}

/** `s` base64-encoded (UTF-8), as Secret data holds it. */
export const base64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64');

/** Secret data decoded (UTF-8). */
export const fromBase64 = (s: string): string => Buffer.from(s, 'base64').toString('utf8');
