import { describe, expect, it } from 'vitest';
import { isConflict, isNotFound } from '../client/errors.js';
import { Kinds } from '../client/kinds.js';
import type { KubeObject } from '../client/types.js';
import { applyOwned, applyUnowned } from '../objects/apply.js';
import { PruneError, pruneOwned } from '../objects/prune.js';
import { patchStatusIfChanged } from '../objects/status.js';
import { ensureFinalizer, removeFinalizer } from '../runtime/finalizer.js';
import { FakeKubeClient, startFakeManager } from './fake.js';
import { waitUntil } from './wait.js';

const cm = (
  name: string,
  data: Record<string, string> = {},
  extra: Partial<KubeObject['metadata']> = {},
): KubeObject => ({
  metadata: { name, namespace: 'ns', ...extra },
  data,
});

describe('FakeKubeClient', () => {
  it('stamps objects like the API server and bumps generation only on spec changes', async () => {
    const fake = new FakeKubeClient();
    const [created] = fake.seed(Kinds.Deployment, {
      metadata: { name: 'd', namespace: 'ns' },
      spec: { replicas: 1 },
    });
    expect(created).toMatchObject({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { generation: 1 } });
    expect(created?.metadata.uid).toBeDefined();
    const ref = { name: 'd', namespace: 'ns' };
    await fake.patch(Kinds.Deployment, ref, { status: { readyReplicas: 1 } }, 'merge', {
      subresource: 'status',
    });
    expect(fake.peek(Kinds.Deployment, ref)?.metadata.generation).toBe(1);
    await fake.patch(Kinds.Deployment, ref, { spec: { replicas: 2 } }, 'merge');
    const after = fake.peek<KubeObject & { status: unknown }>(Kinds.Deployment, ref);
    expect(after?.metadata.generation).toBe(2);
    expect(after?.status).toEqual({ readyReplicas: 1 });
  });

  it('answers 404 and 409 like the real thing', async () => {
    const fake = new FakeKubeClient();
    fake.seed(Kinds.ConfigMap, cm('a'));
    await expect(fake.create(Kinds.ConfigMap, cm('a'))).rejects.toSatisfy(
      (e) => !isNotFound(e) && (e as { code: number }).code === 409,
    );
    await expect(fake.patch(Kinds.ConfigMap, { name: 'x', namespace: 'ns' }, {}, 'merge')).rejects.toSatisfy(
      isNotFound,
    );
    await expect(
      fake.patch(
        Kinds.ConfigMap,
        { name: 'a', namespace: 'ns' },
        { metadata: { resourceVersion: '0' } },
        'merge',
      ),
    ).rejects.toSatisfy(isConflict);
    expect(await fake.get(Kinds.ConfigMap, { name: 'x', namespace: 'ns' })).toBeUndefined();
    expect(await fake.delete(Kinds.ConfigMap, { name: 'x', namespace: 'ns' })).toBe(false);
  });

  it('holds a deletion while finalizers remain, and removes the object with the last one', async () => {
    const fake = new FakeKubeClient();
    const [obj] = fake.seed(Kinds.ConfigMap, cm('a'));
    const ref = { name: 'a', namespace: 'ns' };
    const withFinalizer = await ensureFinalizer(fake, Kinds.ConfigMap, obj as KubeObject, 'x/y');
    expect(withFinalizer.metadata.finalizers).toEqual(['x/y']);
    await fake.delete(Kinds.ConfigMap, ref);
    const deleting = fake.peek(Kinds.ConfigMap, ref);
    expect(deleting?.metadata.deletionTimestamp).toBeDefined();
    await removeFinalizer(fake, Kinds.ConfigMap, deleting as KubeObject, 'x/y');
    expect(fake.peek(Kinds.ConfigMap, ref)).toBeUndefined();
  });

  it('lets lib-common write helpers prove zero writes on an unchanged pass', async () => {
    const fake = new FakeKubeClient();
    const [owner] = fake.seed(Kinds.ConfigMap, cm('owner'));
    const cache = fake.cache();
    const desired = cm('child', { a: '1' });
    await applyOwned(fake, owner as KubeObject, Kinds.ConfigMap, desired, { current: null });
    const live = cache.get<KubeObject>(Kinds.ConfigMap, { name: 'child', namespace: 'ns' });
    const writes = fake.writes();
    expect(
      (await applyOwned(fake, owner as KubeObject, Kinds.ConfigMap, desired, { current: live ?? null }))
        .applied,
    ).toBe(false);
    expect((await patchStatusIfChanged(fake, Kinds.ConfigMap, live as KubeObject, {})).patched).toBe(false);
    expect(fake.writes()).toBe(writes);
  });

  it('fails requests on demand', async () => {
    const fake = new FakeKubeClient();
    fake.failOn({ verb: 'apply', kind: 'ConfigMap' }, new Error('injected'));
    await expect(applyUnowned(fake, Kinds.ConfigMap, cm('a'), { current: null })).rejects.toThrow('injected');
    fake.clearFailures();
    expect((await applyUnowned(fake, Kinds.ConfigMap, cm('a'), { current: null })).applied).toBe(true);
  });
});

describe('applyUnowned', () => {
  it('applies without an owner reference and skips an up-to-date object', async () => {
    const fake = new FakeKubeClient();
    const first = await applyUnowned(fake, Kinds.ConfigMap, cm('shared', { a: '1' }), { current: null });
    expect(first.applied).toBe(true);
    expect(first.object.metadata.ownerReferences).toBeUndefined();
    expect(first.object.metadata.annotations?.['stackops.io/applied-hash']).toBeDefined();
    const again = await applyUnowned(fake, Kinds.ConfigMap, cm('shared', { a: '1' }), {
      current: first.object,
    });
    expect(again.applied).toBe(false);
    const changed = await applyUnowned(fake, Kinds.ConfigMap, cm('shared', { a: '2' }), {
      current: first.object,
    });
    expect(changed.applied).toBe(true);
  });
});

describe('pruneOwned', () => {
  it('deletes what the owner controls but no longer renders, and nothing else', async () => {
    const fake = new FakeKubeClient();
    const [owner] = fake.seed(Kinds.ConfigMap, cm('owner'));
    const o = owner as KubeObject;
    for (const name of ['keep', 'stale'])
      await applyOwned(fake, o, Kinds.ConfigMap, cm(name), { current: null });
    await applyOwned(
      fake,
      o,
      Kinds.Secret,
      { metadata: { name: 'stale-secret', namespace: 'ns' } },
      { current: null },
    );
    fake.seed(Kinds.ConfigMap, cm('unowned'));
    const deleted = await pruneOwned(fake, fake.cache(), {
      kinds: [Kinds.ConfigMap, Kinds.Secret],
      owner: o,
      keep: [{ apiVersion: 'v1', kind: 'ConfigMap', ...cm('keep') }],
    });
    expect(deleted.map((d) => `${d.kind.kind}/${d.object.metadata.name}`)).toEqual([
      'ConfigMap/stale',
      'Secret/stale-secret',
    ]);
    expect(
      fake
        .all(Kinds.ConfigMap)
        .map((c) => c.metadata.name)
        .sort(),
    ).toEqual(['keep', 'owner', 'unowned']);
  });

  it('names the object it could not delete', async () => {
    const fake = new FakeKubeClient();
    const [owner] = fake.seed(Kinds.ConfigMap, cm('owner'));
    await applyOwned(fake, owner as KubeObject, Kinds.ConfigMap, cm('stale'), { current: null });
    fake.failOn({ verb: 'delete' }, new Error('denied'));
    const err = await pruneOwned(fake, fake.cache(), {
      kinds: [Kinds.ConfigMap],
      owner: owner as KubeObject,
      keep: [],
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PruneError);
    expect((err as PruneError).object.metadata.name).toBe('stale');
    expect((err as Error).message).toBe('could not delete ConfigMap ns/stale: denied');
  });
});

describe('startFakeManager', () => {
  it('runs real controllers on the fake: owner triggers, label-selected caches, resumed watches', async () => {
    const fake = new FakeKubeClient();
    fake.seed(Kinds.ConfigMap, cm('owner'), cm('stranger', {}, { labels: { app: 'other' } }));
    const seen: string[] = [];
    let cached: string[] = [];
    const manager = await startFakeManager(fake, (m) => {
      m.controller<KubeObject>({ for: Kinds.Secret, name: 'secrets' })
        .owns(Kinds.ConfigMap, { labelSelector: 'app=mine' })
        .reconcile(async (secret, ctx) => {
          seen.push(secret.metadata.name ?? '');
          cached = ctx.cache.list<KubeObject>(Kinds.ConfigMap).map((c) => c.metadata.name ?? '');
          await applyOwned(
            ctx.client,
            secret,
            Kinds.ConfigMap,
            cm(`${secret.metadata.name}-cm`, { a: '1' }, { labels: { app: 'mine' } }),
            {
              current:
                ctx.cache.get(Kinds.ConfigMap, { namespace: 'ns', name: `${secret.metadata.name}-cm` }) ??
                null,
            },
          );
        });
    });
    try {
      await fake.create(Kinds.Secret, { metadata: { name: 's', namespace: 'ns' } });
      await waitUntil('the first reconcile', () => seen.length >= 1, { timeoutMs: 2000, intervalMs: 5 });
      await waitUntil('the owned ConfigMap cached', () => manager.cache.get(Kinds.ConfigMap, 'ns/s-cm'), {
        timeoutMs: 2000,
        intervalMs: 5,
      });
      expect(cached).not.toContain('stranger');
      const before = seen.length;
      // Someone edits the owned ConfigMap: its owner is reconciled again and puts it back.
      await fake.patch(
        Kinds.ConfigMap,
        { namespace: 'ns', name: 's-cm' },
        { data: { a: 'tampered' } },
        'merge',
      );
      await waitUntil('the owner reconciled again', () => seen.length > before, {
        timeoutMs: 2000,
        intervalMs: 5,
      });
      await waitUntil(
        'the ConfigMap restored',
        () =>
          fake.peek<KubeObject & { data: Record<string, string> }>(Kinds.ConfigMap, {
            namespace: 'ns',
            name: 's-cm',
          })?.data['a'] === '1',
        { timeoutMs: 2000, intervalMs: 5 },
      );
    } finally {
      await manager.stop();
    }
  });

  it('answers 404 for kinds it does not serve, like an API server without the CRD', async () => {
    const fake = new FakeKubeClient({ served: [Kinds.ConfigMap] });
    await expect(fake.list(Kinds.Secret)).rejects.toSatisfy(isNotFound);
    expect(fake.requests.count({ verb: 'list', code: 404 })).toBe(1);
    expect((await fake.list(Kinds.ConfigMap)).items).toEqual([]);
  });
});
