import { describe, expect, it } from 'vitest';
import { nodeReadyForPods } from './real-node.js';

const ready = { status: { conditions: [{ type: 'Ready', status: 'True' }] } };

describe('nodeReadyForPods', () => {
  it('waits for Ready and for the node lifecycle controller to take its not-ready taint off', () => {
    expect(nodeReadyForPods({ status: { conditions: [{ type: 'Ready', status: 'False' }] } })).toBe(false);
    expect(nodeReadyForPods({ ...ready, spec: { taints: [{ key: 'node.kubernetes.io/not-ready' }] } })).toBe(
      false,
    );
    expect(
      nodeReadyForPods({ ...ready, spec: { taints: [{ key: 'node.kubernetes.io/unreachable' }] } }),
    ).toBe(false);
    expect(nodeReadyForPods(ready)).toBe(true);
    expect(nodeReadyForPods({ ...ready, spec: { taints: [{ key: 'example.org/own' }] } })).toBe(true);
  });
});
