import { describe, expect, it } from 'vitest';
import { Kinds } from '../client/kinds.js';
import type { KubeObject } from '../client/types.js';
import { FakeKubeClient } from '../testing/fake.js';
import { addFinalizerPatch, holdFinalizer, releaseFinalizer, removeFinalizerPatch } from './finalizer.js';

const F = 'example.stackops.dev/cleanup';
const obj = (finalizers?: string[], deleting = false): KubeObject => ({
  metadata: {
    name: 'a',
    namespace: 'ns',
    ...(finalizers ? { finalizers } : {}),
    ...(deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}),
  },
});

describe('finalizer patches', () => {
  it('adds the whole list, guarded by a null test, when there are no finalizers', () => {
    expect(addFinalizerPatch(obj(), F)).toEqual([
      { op: 'test', path: '/metadata/finalizers', value: null },
      { op: 'add', path: '/metadata/finalizers', value: [F] },
    ]);
  });

  it('appends, guarded by a test of the current list, when others are present', () => {
    expect(addFinalizerPatch(obj(['other']), F)).toEqual([
      { op: 'test', path: '/metadata/finalizers', value: ['other'] },
      { op: 'add', path: '/metadata/finalizers/-', value: F },
    ]);
  });

  it('adds nothing when already present, and removes nothing when absent', () => {
    expect(addFinalizerPatch(obj([F]), F)).toBeUndefined();
    expect(removeFinalizerPatch(obj(['other']), F)).toBeUndefined();
  });

  it('removes by index, guarded by a test of that index', () => {
    expect(removeFinalizerPatch(obj(['other', F]), F)).toEqual([
      { op: 'test', path: '/metadata/finalizers/1', value: F },
      { op: 'remove', path: '/metadata/finalizers/1' },
    ]);
  });
});

describe('holdFinalizer / releaseFinalizer (fake API server)', () => {
  const ref = { name: 'a', namespace: 'ns' };
  const kind = Kinds.ConfigMap;

  it('from a copy whose finalizer list moved since: the test fails, the object is read again, the hold succeeds', async () => {
    const fake = new FakeKubeClient();
    const [stale] = fake.seed(kind, obj(['other']));
    await fake.patch(kind, ref, { metadata: { finalizers: ['other', 'third'] } }, 'merge');
    const held = await holdFinalizer(fake, kind, stale!, F);
    expect(held?.metadata.finalizers).toEqual(['other', 'third', F]);
    const released = await releaseFinalizer(fake, kind, stale!, F);
    expect(released?.metadata.finalizers).toEqual(['other', 'third']);
  });

  it('a status write since the copy was read changes nothing: one patch, no re-read', async () => {
    const fake = new FakeKubeClient();
    const [stale] = fake.seed(kind, obj());
    await fake.patch(kind, ref, { status: { n: 1 } }, 'merge', { subresource: 'status' });
    const before = fake.calls.length;
    await holdFinalizer(fake, kind, stale!, F);
    expect(fake.calls.slice(before).map((c) => c.verb)).toEqual(['patch']);
  });

  it('an object that is gone: undefined, and nothing written', async () => {
    const fake = new FakeKubeClient();
    expect(await holdFinalizer(fake, kind, ref, F)).toBeUndefined();
    expect(await releaseFinalizer(fake, kind, ref, F)).toBeUndefined();
    expect(fake.writes()).toBe(0);
  });
});
