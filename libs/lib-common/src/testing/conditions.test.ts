import { describe, expect, it } from 'vitest';
import { Kinds } from '../client/kinds.js';
import type { KubeObject } from '../client/types.js';
import { expectCondition, fakeConditionOf, waitForConditions } from './conditions.js';
import { FakeKubeClient } from './fake.js';

const ref = { namespace: 'ns', name: 'cm' };
const withStatus = (observedGeneration: number, conditions: object[]) =>
  ({ metadata: { ...ref, generation: 2 }, status: { observedGeneration, conditions } }) as KubeObject;
const ready = { type: 'Ready', status: 'False', reason: 'Waiting', severity: 'Info', message: 'not yet' };

describe('expectCondition', () => {
  it('passes when every given field matches, and throws naming each field that differs', () => {
    const obj = withStatus(2, [ready]);
    expect(expectCondition(obj, 'Ready', { status: 'False', reason: 'Waiting', message: /not/ })).toBe(obj);
    expect(() => expectCondition(obj, 'Ready', { status: 'True', severity: 'Error' })).toThrow(
      /Ready.status is False, not True; Ready.severity is Info, not Error\nconditions:\nReady=False \(Info\) Waiting: not yet/,
    );
    expect(() => expectCondition(obj, 'Gone', { status: 'True' })).toThrow(/Gone: no such condition/);
  });
});

describe('waitForConditions', () => {
  it('resolves once every condition matches; with current, only for a status of the current generation', async () => {
    const fake = new FakeKubeClient();
    fake.seed(Kinds.ConfigMap, withStatus(1, [ready, { type: 'Other', status: 'True' }]));
    const want = { Ready: { status: 'False', reason: 'Waiting' }, Other: 'True' } as const;
    const fast = { timeoutMs: 300, intervalMs: 10 };
    await expect(waitForConditions(fake, Kinds.ConfigMap, ref, want, fast)).resolves.toBeDefined();
    await expect(
      waitForConditions(fake, Kinds.ConfigMap, ref, want, { ...fast, current: true }),
    ).rejects.toThrow(
      /timed out after 300 ms waiting for conditions .* \(current status\) on ConfigMap ns\/cm/,
    );
    await expect(
      waitForConditions(fake, Kinds.ConfigMap, ref, { ...want, Other: 'False' }, fast),
    ).rejects.toThrow(/Other=True/);
    const reader = fakeConditionOf(Kinds.ConfigMap, ref);
    expect(reader(fake, 'Other')?.status).toBe('True');
  });
});
