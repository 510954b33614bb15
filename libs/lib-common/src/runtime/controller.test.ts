import { describe, expect, it } from 'vitest';
import type { KindRef } from '../resources/kinds.js';
import type { KubeObject } from '../resources/types.js';
import { controllerOwnerKey } from './controller.js';

const Greeting: KindRef = {
  group: 'example.stackops.dev',
  version: 'v1alpha1',
  kind: 'Greeting',
  plural: 'greetings',
  namespaced: true,
};
const owned = (refs: NonNullable<KubeObject['metadata']['ownerReferences']>): KubeObject => ({
  metadata: { name: 'cm', namespace: 'ns', ownerReferences: refs },
});

describe('controllerOwnerKey', () => {
  it('maps an object to its controller owner of the primary kind, in its own namespace', () => {
    const obj = owned([
      { apiVersion: 'example.stackops.dev/v1beta1', kind: 'Greeting', name: 'g', uid: '1', controller: true },
    ]);
    expect(controllerOwnerKey(obj, Greeting)).toBe('ns/g');
  });

  it('ignores non-controller owners and owners of another kind or group', () => {
    expect(
      controllerOwnerKey(
        owned([{ apiVersion: 'example.stackops.dev/v1alpha1', kind: 'Greeting', name: 'g', uid: '1' }]),
        Greeting,
      ),
    ).toBeUndefined();
    expect(
      controllerOwnerKey(
        owned([{ apiVersion: 'apps/v1', kind: 'Greeting', name: 'g', uid: '1', controller: true }]),
        Greeting,
      ),
    ).toBeUndefined();
    expect(
      controllerOwnerKey(
        owned([
          {
            apiVersion: 'example.stackops.dev/v1alpha1',
            kind: 'Farewell',
            name: 'g',
            uid: '1',
            controller: true,
          },
        ]),
        Greeting,
      ),
    ).toBeUndefined();
  });

  it('keys a cluster-scoped owner by name alone', () => {
    const ns: KindRef = {
      group: '',
      version: 'v1',
      kind: 'Namespace',
      plural: 'namespaces',
      namespaced: false,
    };
    expect(
      controllerOwnerKey(
        owned([{ apiVersion: 'v1', kind: 'Namespace', name: 'team', uid: '1', controller: true }]),
        ns,
      ),
    ).toBe('team');
  });
});
