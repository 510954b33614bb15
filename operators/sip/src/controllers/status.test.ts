import type { KubeObject } from '@stackops/lib-common/client';
import { describe, expect, it } from 'vitest';
import { rolledOut } from './status.js';

const deployment = (generation: number, replicas: number | undefined, status: Record<string, number>) =>
  ({
    metadata: { name: 'lb', generation },
    spec: replicas === undefined ? {} : { replicas },
    status,
  }) as KubeObject;

const done = { observedGeneration: 2, replicas: 1, updatedReplicas: 1, availableReplicas: 1 };

describe('rolledOut (the rule between Progressing and ReconciliationSucceeded)', () => {
  it.each([
    ['every replica updated and available at the current generation', deployment(2, 1, done), true],
    ['spec.replicas unset counts as 1', deployment(2, undefined, done), true],
    ['scaled to 0, observed', deployment(2, 0, { observedGeneration: 2 }), true],
    ['just created: no status yet', deployment(1, 1, {}), false],
    ['a new spec its controller has not seen', deployment(3, 1, done), false],
    ['updated but not available yet', deployment(2, 1, { ...done, availableReplicas: 0 }), false],
    ['available but an old template still serves', deployment(2, 1, { ...done, updatedReplicas: 0 }), false],
    ['surge: the old pod not gone yet', deployment(2, 1, { ...done, replicas: 2 }), false],
    ['two wanted, one available', deployment(2, 2, { ...done, replicas: 2, updatedReplicas: 2 }), false],
  ])('%s → %s', (_, d, want) => {
    expect(rolledOut(d)).toBe(want);
  });
});
