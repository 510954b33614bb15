import { describe, expect, it } from 'vitest';
import { takesOwnerReference } from './ownership.js';

describe('ownership', () => {
  it('owns everything but CRDs and objects that reject an owner', () => {
    expect(takesOwnerReference({ kind: 'DaemonSet', metadata: {} })).toBe(true);
    expect(takesOwnerReference({ kind: 'CustomResourceDefinition', metadata: {} })).toBe(false);
    expect(
      takesOwnerReference({
        kind: 'Secret',
        metadata: { annotations: { 'networkaddonsoperator.network.kubevirt.io/rejectOwner': '' } },
      }),
    ).toBe(false);
  });
});
