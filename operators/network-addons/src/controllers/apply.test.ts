import { describe, expect, it } from 'vitest';
import { takesOwnerReference } from './apply.js';
import { containersOf } from './network-addons-config-reconciler.js';

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

describe('containersOf', () => {
  it('lists init containers first, then containers, per workload in order', () => {
    const w = (kind: string, name: string, init: string[], main: string[]) => ({
      kind,
      metadata: { name },
      spec: {
        template: {
          spec: {
            initContainers: init.map((n) => ({ name: n, image: `${n}:1` })),
            containers: main.map((n) => ({ name: n, image: `${n}:1` })),
          },
        },
      },
    });
    expect(
      containersOf([
        w('DaemonSet', 'multus', ['install'], ['daemon']),
        w('Deployment', 'dns', [], ['a', 'b']),
      ]),
    ).toEqual([
      { parentKind: 'DaemonSet', parentName: 'multus', name: 'install', image: 'install:1' },
      { parentKind: 'DaemonSet', parentName: 'multus', name: 'daemon', image: 'daemon:1' },
      { parentKind: 'Deployment', parentName: 'dns', name: 'a', image: 'a:1' },
      { parentKind: 'Deployment', parentName: 'dns', name: 'b', image: 'b:1' },
    ]);
  });
});
