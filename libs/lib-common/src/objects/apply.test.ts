import { describe, expect, it } from 'vitest';
import { Kinds } from '../client/kinds.js';
import type { KubeObject } from '../client/types.js';
import { APPLIED_HASH_ANNOTATION, desiredOwnedObject, isUpToDate } from './apply.js';
import { controllerOf, withControllerReference } from './owner.js';

const owner: KubeObject = {
  apiVersion: 'keystone.openstack.org/v1beta1',
  kind: 'KeystoneAPI',
  metadata: { name: 'keystone', namespace: 'openstack', uid: 'uid-1' },
};
const cm = (data: Record<string, string>, labels?: Record<string, string>): KubeObject => ({
  metadata: { name: 'cfg', ...(labels ? { labels } : {}) },
  data,
});

describe('withControllerReference', () => {
  it('adds a controller reference with blockOwnerDeletion and the owner namespace', () => {
    const owned = withControllerReference(owner, Kinds.ConfigMap, cm({ a: '1' }));
    expect(owned.metadata.namespace).toBe('openstack');
    expect(controllerOf(owned)).toEqual({
      apiVersion: 'keystone.openstack.org/v1beta1',
      kind: 'KeystoneAPI',
      name: 'keystone',
      uid: 'uid-1',
      controller: true,
      blockOwnerDeletion: true,
    });
  });

  it('replaces another controller, keeps plain references', () => {
    const other = { apiVersion: 'v1', kind: 'X', name: 'x', uid: 'u2' };
    const obj = cm({});
    obj.metadata.ownerReferences = [other, { ...other, uid: 'u3', controller: true }];
    expect(
      withControllerReference(owner, Kinds.ConfigMap, obj).metadata.ownerReferences?.map((r) => r.uid),
    ).toEqual(['u2', 'uid-1']);
  });

  it.each([
    ['another namespace', Kinds.ConfigMap, { metadata: { name: 'c', namespace: 'elsewhere' } }],
    ['a cluster-scoped dependent', Kinds.ClusterRole, { metadata: { name: 'c' } }],
  ])('refuses %s', (_n, kind, obj) => {
    expect(() => withControllerReference(owner, kind, obj)).toThrow(TypeError);
  });

  it('needs the owner uid', () => {
    expect(() =>
      withControllerReference({ ...owner, metadata: { name: 'k' } }, Kinds.ConfigMap, cm({})),
    ).toThrow('uid');
  });
});

describe('desiredOwnedObject / isUpToDate', () => {
  const desired = desiredOwnedObject(owner, Kinds.ConfigMap, cm({ a: '1' }, { l: 'x' }));
  /** What the API server returns for it: server fields added. */
  const live = (d: KubeObject, patch: (o: KubeObject) => void = () => {}): KubeObject => {
    const o = structuredClone(d);
    o.metadata.uid = 'cm-uid';
    o.metadata.resourceVersion = '42';
    patch(o);
    return o;
  };

  it('carries type meta and a stable applied-hash annotation', () => {
    expect(desired).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap' });
    expect(desired.metadata.annotations?.[APPLIED_HASH_ANNOTATION]).toMatch(/^[a-z2-9]{54}$/);
    expect(desiredOwnedObject(owner, Kinds.ConfigMap, cm({ a: '1' }, { l: 'x' }))).toEqual(desired);
  });

  it.each<[string, KubeObject | null, boolean]>([
    ['absent', null, false],
    ['as applied, plus server fields', live(desired), true],
    [
      'someone changed a field we set',
      live(desired, (o) => {
        o['data'] = { a: '2' };
      }),
      false,
    ],
    [
      'someone added a field we do not set',
      live(desired, (o) => {
        o.metadata.labels = { l: 'x', other: 'y' };
      }),
      true,
    ],
    [
      'hash annotation missing (applied by someone else)',
      live(desired, (o) => {
        o.metadata.annotations = {};
      }),
      false,
    ],
    [
      'being deleted',
      live(desired, (o) => {
        o.metadata.deletionTimestamp = '2024-01-01T00:00:00Z';
      }),
      false,
    ],
  ])('%s → %s', (_n, current, upToDate) => {
    expect(isUpToDate(desired, current)).toBe(upToDate);
  });

  it('a field we stopped setting changes the hash, so the apply (which removes it) is not skipped', () => {
    const before = live(desired);
    const now = desiredOwnedObject(owner, Kinds.ConfigMap, cm({ a: '1' }));
    expect(isUpToDate(now, before)).toBe(false);
  });
});
