import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../client/types.js';
import { addFinalizerPatch, removeFinalizerPatch } from './finalizer.js';

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
