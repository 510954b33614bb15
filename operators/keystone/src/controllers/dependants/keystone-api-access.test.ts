import type { KindRef, KubeObject, ObjectRef } from '@stackops/lib-common/client';
import { Conditions } from '@stackops/lib-common/conditions';
import type { CacheReader } from '@stackops/lib-common/runtime';
import { describe, expect, it } from 'vitest';
import type { KeystoneAPI } from '../../api/keystone-api.js';
import { IdentityClientPool } from '../../identity/client-pool.js';
import { gateOnKeystoneAPI } from './keystone-api-access.js';

/** An in-memory stand-in for the informer cache (plain objects, no API server involved). */
function cacheOf(objects: KubeObject[]): CacheReader {
  return {
    get: <T extends KubeObject>(kind: KindRef, ref: ObjectRef | string) =>
      objects.find(
        (o) => o.kind === kind.kind && o.metadata.name === (typeof ref === 'string' ? ref : ref.name),
      ) as T | undefined,
    list: <T extends KubeObject>(kind: KindRef, opts?: { namespace?: string }) =>
      objects.filter((o) => o.kind === kind.kind && o.metadata.namespace === opts?.namespace) as T[],
  };
}

function api(opts: { ready?: boolean; deleting?: boolean; name?: string } = {}): KeystoneAPI {
  return {
    apiVersion: 'keystone.openstack.org/v1beta1',
    kind: 'KeystoneAPI',
    metadata: {
      name: opts.name ?? 'keystone',
      namespace: 'ns',
      ...(opts.deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}),
    },
    spec: { secret: 'osp-secret' },
    status: {
      conditions: [
        { type: 'Ready', status: opts.ready ? 'True' : 'False', lastTransitionTime: '2026-01-01T00:00:00Z' },
      ],
    },
  } as KeystoneAPI;
}

describe('gateOnKeystoneAPI', () => {
  const gate = (objs: KubeObject[], deleting: boolean, registered: boolean) => {
    const conditions = new Conditions().init([]);
    return { result: gateOnKeystoneAPI(cacheOf(objs), 'ns', deleting, registered, conditions), conditions };
  };

  it('waits 5 s with KeystoneAPIReady False/Error "KeystoneAPI not found" when there is none', () => {
    const { result, conditions } = gate([], false, false);
    expect(result).toEqual({ next: 'wait', requeueAfterMs: 5_000 });
    expect(conditions.get('KeystoneAPIReady')).toMatchObject({
      status: 'False',
      reason: 'Error',
      severity: 'Warning',
      message: 'KeystoneAPI not found',
    });
  });

  it('releases only finalizers when deleting and the KeystoneAPI is gone, being deleted, or nothing was registered', () => {
    expect(gate([], true, true).result).toEqual({ next: 'release-only', api: undefined });
    expect(gate([api({ ready: true, deleting: true })], true, true).result.next).toBe('release-only');
    expect(gate([api({ ready: true })], true, false).result.next).toBe('release-only');
  });

  it('waits while the KeystoneAPI is not Ready, and proceeds when it is', () => {
    const waiting = gate([api({ ready: false })], false, false);
    expect(waiting.result).toEqual({ next: 'wait', requeueAfterMs: 5_000 });
    expect(waiting.conditions.get('KeystoneAPIReady')).toMatchObject({
      status: 'False',
      reason: 'Requested',
      message: 'KeystoneAPI not yet ready',
    });
    const going = gate([api({ ready: true, deleting: true })], false, true);
    expect(going.result).toEqual({ next: 'wait', requeueAfterMs: 5_000 });
    expect(going.conditions.get('KeystoneAPIReady')?.message).toBe('KeystoneAPI not yet ready');
    const ready = gate([api({ ready: true })], true, true);
    expect(ready.result.next).toBe('proceed');
    expect(ready.conditions.get('KeystoneAPIReady')).toMatchObject({
      status: 'True',
      message: 'KeystoneAPI ready',
    });
  });

  it('refuses two KeystoneAPIs in one namespace', () => {
    expect(() => gate([api({ ready: true }), api({ ready: true, name: 'other' })], false, false)).toThrow(
      /more than one KeystoneAPI/,
    );
  });
});

describe('IdentityClientPool', () => {
  it('reuses a client for the same options and makes a new one when the password changes', () => {
    const pool = new IdentityClientPool(2);
    const opts = { authUrl: 'http://127.0.0.1:1', username: 'admin', password: 'a' };
    const first = pool.get(opts);
    expect(pool.get({ ...opts })).toBe(first);
    expect(pool.get({ ...opts, password: 'b' })).not.toBe(first);
    pool.get({ ...opts, password: 'c' });
    expect(pool.size).toBe(2);
    // The least recently used (password a) was dropped.
    expect(pool.get(opts)).not.toBe(first);
  });
});
