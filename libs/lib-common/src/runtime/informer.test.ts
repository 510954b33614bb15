import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../client/errors.js';
import { Kinds } from '../client/kinds.js';
import type {
  KubeClient,
  KubeObject,
  ListOptions,
  ObjectList,
  WatchEvent,
  WatchOptions,
} from '../client/types.js';
import { waitUntil } from '../testing/wait.js';
import { Informer, type InformerEvent, slimForCache } from './informer.js';

type WatchScript = (opts: WatchOptions, emit: (e: WatchEvent) => void) => Promise<void>;

const cm = (name: string, rv: string, labels?: Record<string, string>): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'ns', resourceVersion: rv, ...(labels ? { labels } : {}) },
});

/**
 * A scripted stand-in for the client's list and watch calls: enough to drive the informer's state
 * machine through 410s, errors and silences that are hard to provoke on demand from a real server.
 */
function scriptedClient(lists: (() => ObjectList)[], watches: WatchScript[]) {
  const calls = { lists: [] as ListOptions[], watches: [] as WatchOptions[] };
  const notUsed = (): never => {
    throw new Error('not used');
  };
  const client: KubeClient = {
    fieldManager: 'test',
    get: notUsed,
    create: notUsed,
    replace: notUsed,
    apply: notUsed,
    patch: notUsed,
    delete: notUsed,
    async list<T extends KubeObject>(_k: unknown, opts?: ListOptions) {
      calls.lists.push(opts ?? {});
      const next = lists.shift();
      if (!next) throw new Error('no more lists scripted');
      return next() as ObjectList<T>;
    },
    async watch<T extends KubeObject>(_k: unknown, opts: WatchOptions, onEvent: (e: WatchEvent<T>) => void) {
      calls.watches.push({ ...opts });
      const next = watches.shift();
      if (!next) {
        // Nothing more scripted: stay open until stopped.
        await new Promise<void>((resolve) => opts.signal?.addEventListener('abort', () => resolve()));
        return;
      }
      opts.onOpen?.();
      await next(opts, onEvent as (e: WatchEvent) => void);
    },
  };
  return { client, calls };
}

const list =
  (rv: string, ...items: KubeObject[]) =>
  () => ({ items, metadata: { resourceVersion: rv } });
const fast = { initialMs: 1, maxMs: 5 };
const gone = new ApiError({ code: 410, reason: 'Expired', message: 'too old resource version' });

/** The testing vocabulary's `waitUntil`, polled every 2 ms (the informer works on fake time scales). */
const until = (cond: () => boolean): Promise<true> =>
  waitUntil('the informer to catch up', () => cond() || undefined, { timeoutMs: 2000, intervalMs: 2 });

describe('Informer, list then watch', () => {
  it('lists, becomes synced, then applies watch events from the list resourceVersion', async () => {
    const { client, calls } = scriptedClient(
      [list('10', cm('a', '5'), cm('b', '6'))],
      [
        async (_o, emit) => {
          emit({ type: 'MODIFIED', object: cm('a', '11') });
          emit({ type: 'ADDED', object: cm('c', '12') });
          emit({ type: 'DELETED', object: cm('b', '13') });
        },
      ],
    );
    const inf = new Informer(client, Kinds.ConfigMap, { backoff: fast, watchList: false });
    const seen: string[] = [];
    inf.on((e) => seen.push(`${e.type}:${e.obj.metadata.name}`));
    inf.start();
    await inf.waitForSync();
    expect(inf.synced()).toBe(true);
    await until(() => seen.length === 5);
    expect(seen).toEqual(['add:a', 'add:b', 'update:a', 'add:c', 'delete:b']);
    expect(calls.watches[0]).toMatchObject({ resourceVersion: '10', allowWatchBookmarks: true });
    expect(inf.list().map((o) => o.metadata.name)).toEqual(['a', 'c']);
    await until(() => calls.watches.length === 2);
    // resumed from the last event's resourceVersion, without a relist
    expect(calls.watches[1]?.resourceVersion).toBe('13');
    expect(calls.lists).toHaveLength(1);
    // Each watch asks for its own 30–60 min (watchTimeoutSeconds), not one fixed figure.
    for (const w of calls.watches) {
      expect(w.timeoutSeconds).toBeGreaterThanOrEqual(1800);
      expect(w.timeoutSeconds).toBeLessThan(3600);
    }
    await inf.stop();
  });

  it('resumes from a bookmark resourceVersion', async () => {
    const { client, calls } = scriptedClient(
      [list('10')],
      [
        async (_o, emit) => {
          emit({ type: 'BOOKMARK', object: { metadata: { resourceVersion: '99' } } });
        },
      ],
    );
    const inf = new Informer(client, Kinds.ConfigMap, { backoff: fast, watchList: false });
    inf.start();
    await until(() => calls.watches.length === 2);
    expect(calls.watches[1]?.resourceVersion).toBe('99');
    await inf.stop();
  });

  it('relists on 410 and tells listeners about objects deleted in between', async () => {
    const { client, calls } = scriptedClient(
      [list('10', cm('a', '5'), cm('b', '6')), list('20', cm('a', '15'), cm('c', '16'))],
      [
        async () => {
          throw gone;
        },
      ],
    );
    const inf = new Informer(client, Kinds.ConfigMap, { backoff: fast, watchList: false });
    const events: InformerEvent[] = [];
    inf.on((e) => events.push(e));
    inf.start();
    await until(() => calls.watches.length === 2);
    expect(calls.lists).toHaveLength(2);
    expect(calls.watches[1]?.resourceVersion).toBe('20');
    expect(events.map((e) => `${e.type}:${e.obj.metadata.name}`)).toEqual([
      'add:a',
      'add:b',
      'update:a',
      'add:c',
      'delete:b',
    ]);
    expect(inf.restarts.gone).toBe(1);
    await inf.stop();
  });

  it('restarts a failed watch with backoff from the same resourceVersion, without relisting', async () => {
    const down = new ApiError({ code: 0, reason: 'ConnectionError', message: 'ECONNREFUSED' });
    const { client, calls } = scriptedClient(
      [list('10', cm('a', '5'))],
      [
        async () => {
          throw down;
        },
        async () => {
          throw down;
        },
        async (_o, emit) => emit({ type: 'MODIFIED', object: cm('a', '30') }),
      ],
    );
    const inf = new Informer(client, Kinds.ConfigMap, { backoff: fast, watchList: false });
    inf.start();
    await until(() => inf.get('ns/a')?.metadata.resourceVersion === '30');
    expect(inf.restarts.error).toBe(2);
    expect(calls.lists).toHaveLength(1);
    expect(calls.watches.slice(0, 3).map((w) => w.resourceVersion)).toEqual(['10', '10', '10']);
    await inf.stop();
  });

  it('restarts a watch that stays silent past the idle timeout', async () => {
    const { client, calls } = scriptedClient(
      [list('10')],
      [
        (opts) => new Promise<void>((resolve) => opts.signal?.addEventListener('abort', () => resolve())),
        async (_o, emit) => emit({ type: 'ADDED', object: cm('late', '40') }),
      ],
    );
    const inf = new Informer(client, Kinds.ConfigMap, { backoff: fast, idleTimeoutMs: 30, watchList: false });
    inf.start();
    await until(() => inf.get('ns/late') !== undefined);
    expect(inf.restarts.idle).toBe(1);
    expect(calls.watches[1]?.resourceVersion).toBe('10');
    await inf.stop();
  });

  it('keeps a watch whose events come more often than the idle timeout, and restarts it once they stop', async () => {
    let streaming = true;
    const { client } = scriptedClient(
      [list('10')],
      [
        async (opts, emit) => {
          // 16 events 25 ms apart: 400 ms of traffic against a 150 ms idle timeout, with room for a
          // late timer on a loaded machine.
          for (let i = 0; i < 16 && !opts.signal?.aborted; i++) {
            emit({ type: 'ADDED', object: cm(`cm-${i}`, String(11 + i)) });
            await new Promise((r) => setTimeout(r, 25));
          }
          streaming = false;
          await new Promise<void>((resolve) => opts.signal?.addEventListener('abort', () => resolve()));
        },
        async (_o, emit) => emit({ type: 'ADDED', object: cm('after', '40') }),
      ],
    );
    const inf = new Informer(client, Kinds.ConfigMap, {
      backoff: fast,
      idleTimeoutMs: 150,
      watchList: false,
    });
    inf.start();
    await until(() => !streaming);
    expect(inf.restarts.idle).toBe(0);
    expect(inf.get('ns/cm-15')).toBeDefined();
    await until(() => inf.get('ns/after') !== undefined);
    expect(inf.restarts.idle).toBe(1);
    await inf.stop();
  });

  it('is synced only when every namespace was listed, and lists per namespace', async () => {
    let releaseSecond!: () => void;
    const second = new Promise<void>((r) => {
      releaseSecond = r;
    });
    const { client, calls } = scriptedClient(
      [
        list('1', cm('a', '1')),
        () => {
          throw new Error('unreachable');
        },
      ],
      [],
    );
    // the second namespace's list waits until released
    const origList = client.list.bind(client);
    let n = 0;
    client.list = async <T extends KubeObject>(k: typeof Kinds.ConfigMap, o?: ListOptions) => {
      n += 1;
      if (n === 2) {
        calls.lists.push(o ?? {});
        await second;
        return { items: [], metadata: { resourceVersion: '2' } } as ObjectList<T>;
      }
      return origList<T>(k, o);
    };
    const inf = new Informer(client, Kinds.ConfigMap, {
      namespaces: ['ns', 'other'],
      backoff: fast,
      watchList: false,
    });
    inf.start();
    await until(() => calls.lists.length === 2);
    expect(inf.synced()).toBe(false);
    releaseSecond();
    await inf.waitForSync();
    expect(calls.lists.map((l) => l.namespace).sort()).toEqual(['ns', 'other']);
    await inf.stop();
  });

  it('drops managedFields from cached objects and lists by label selector', async () => {
    const withFields = { ...cm('a', '1', { app: 'x' }) };
    (withFields.metadata as Record<string, unknown>)['managedFields'] = [{ manager: 'kubectl' }];
    const { client } = scriptedClient([list('5', withFields, cm('b', '2', { app: 'y' }))], []);
    const inf = new Informer(client, Kinds.ConfigMap, { watchList: false });
    inf.start();
    await inf.waitForSync();
    expect(inf.get('ns/a')?.metadata).not.toHaveProperty('managedFields');
    expect(inf.list({ labelSelector: 'app in (x,z)' }).map((o) => o.metadata.name)).toEqual(['a']);
    expect(inf.list({ namespace: 'elsewhere' })).toEqual([]);
    await inf.stop();
  });

  it("caches objects without managedFields and kubectl's last-applied copy, keeping everything else", async () => {
    const applied = cm('a', '1', { app: 'x' });
    const spec = { replicas: 3, customServiceConfig: 'x'.repeat(4096) };
    const full = {
      ...applied,
      metadata: {
        ...applied.metadata,
        annotations: {
          'kubectl.kubernetes.io/last-applied-configuration': JSON.stringify({ spec }),
          'example.org/kept': 'yes',
        },
        managedFields: [{ manager: 'kubectl', fieldsV1: { 'f:spec': {} } }],
      },
      spec,
      status: { observedGeneration: 1 },
    } as KubeObject;
    const onlyLastApplied = {
      ...applied,
      metadata: {
        ...applied.metadata,
        annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{}' },
      },
    } as KubeObject;
    const { client } = scriptedClient([list('5', full)], []);
    const inf = new Informer(client, Kinds.ConfigMap, { watchList: false });
    inf.start();
    await inf.waitForSync();
    const cached = inf.get('ns/a');
    expect(cached).toEqual({
      ...applied,
      metadata: { ...applied.metadata, annotations: { 'example.org/kept': 'yes' } },
      spec,
      status: { observedGeneration: 1 },
    });
    // Half the bytes of an object applied with kubectl are its own copy.
    expect(JSON.stringify(cached).length).toBeLessThan(JSON.stringify(full).length / 1.8);
    expect(slimForCache(onlyLastApplied).metadata).not.toHaveProperty('annotations');
    // Nothing to drop: the same object, not a copy.
    expect(slimForCache(applied)).toBe(applied);
    await inf.stop();
  });

  it('waitForSync leaves no listener on the signal nor waiter on the informer behind', async () => {
    let releaseList!: () => void;
    const listed = new Promise<void>((r) => {
      releaseList = r;
    });
    const { client } = scriptedClient([list('1')], []);
    const firstList = client.list.bind(client);
    client.list = async <T extends KubeObject>(k: typeof Kinds.ConfigMap, o?: ListOptions) => {
      await listed;
      return firstList<T>(k, o);
    };
    const inf = new Informer(client, Kinds.ConfigMap, { backoff: fast, watchList: false });
    const waiters = () => (inf as unknown as { syncWaiters: unknown[] }).syncWaiters.length;
    inf.start();
    // Aborted before the sync: the informer forgets the waiter.
    const aborted = new AbortController();
    const first = inf.waitForSync(aborted.signal);
    expect(waiters()).toBe(1);
    aborted.abort();
    await first;
    expect(inf.synced()).toBe(false);
    expect(waiters()).toBe(0);
    // Synced first: the signal forgets the listener.
    const kept = new AbortController();
    const second = inf.waitForSync(kept.signal);
    expect(getEventListeners(kept.signal, 'abort')).toHaveLength(1);
    releaseList();
    await second;
    expect(inf.synced()).toBe(true);
    expect(getEventListeners(kept.signal, 'abort')).toHaveLength(0);
    await inf.stop();
  });
});

describe('Informer, watch-list', () => {
  const endOfInitialEvents = (rv: string): WatchEvent => ({
    type: 'BOOKMARK',
    object: { metadata: { resourceVersion: rv, annotations: { 'k8s.io/initial-events-end': 'true' } } },
  });

  it('syncs with one request that streams the current objects and goes on watching', async () => {
    let inf!: Informer;
    const syncedDuringInitialEvents: boolean[] = [];
    const { client, calls } = scriptedClient(
      [],
      [
        async (_o, emit) => {
          emit({ type: 'ADDED', object: cm('a', '5') });
          emit({ type: 'ADDED', object: cm('b', '6') });
          syncedDuringInitialEvents.push(inf.synced());
          emit(endOfInitialEvents('10'));
          syncedDuringInitialEvents.push(inf.synced());
          emit({ type: 'MODIFIED', object: cm('a', '11') });
        },
      ],
    );
    inf = new Informer(client, Kinds.ConfigMap, { backoff: fast });
    const seen: string[] = [];
    inf.on((e) => seen.push(`${e.type}:${e.obj.metadata.name}`));
    inf.start();
    await inf.waitForSync();
    await until(() => calls.watches.length === 2);
    expect(syncedDuringInitialEvents).toEqual([false, true]);
    expect(seen).toEqual(['add:a', 'add:b', 'update:a']);
    expect(calls.lists).toHaveLength(0);
    expect(calls.watches[0]).toMatchObject({
      sendInitialEvents: true,
      resourceVersionMatch: 'NotOlderThan',
      allowWatchBookmarks: true,
    });
    expect(calls.watches[0]?.resourceVersion).toBeUndefined();
    // The server's timeout ended it: resumed from the last event, without streaming again.
    expect(calls.watches[1]?.resourceVersion).toBe('11');
    expect(calls.watches[1]?.sendInitialEvents).toBeUndefined();
    await inf.stop();
  });

  it('streams again when a stream ends before its bookmark, and after a 410 sees what was deleted', async () => {
    const { client, calls } = scriptedClient(
      [],
      [
        async (_o, emit) => {
          emit({ type: 'ADDED', object: cm('a', '5') });
          emit({ type: 'ADDED', object: cm('b', '6') });
          emit(endOfInitialEvents('10'));
        },
        async () => {
          throw gone;
        },
        // cut off in the middle of the initial events: nothing of it is kept
        async (_o, emit) => {
          emit({ type: 'ADDED', object: cm('partial', '15') });
        },
        async (_o, emit) => {
          emit({ type: 'ADDED', object: cm('a', '16') });
          emit(endOfInitialEvents('20'));
        },
      ],
    );
    const inf = new Informer(client, Kinds.ConfigMap, { backoff: fast });
    const seen: string[] = [];
    inf.on((e) => seen.push(`${e.type}:${e.obj.metadata.name}`));
    inf.start();
    await until(() => calls.watches.length === 5);
    expect(calls.watches.map((w) => w.sendInitialEvents === true)).toEqual([true, false, true, true, false]);
    expect(calls.watches[1]?.resourceVersion).toBe('10');
    expect(calls.watches[4]?.resourceVersion).toBe('20');
    expect(seen).toEqual(['add:a', 'add:b', 'update:a', 'delete:b']);
    expect(inf.list().map((o) => o.metadata.name)).toEqual(['a']);
    expect(inf.restarts.gone).toBe(1);
    expect(calls.lists).toHaveLength(0);
    await inf.stop();
  });

  it('lists at once when a watch-list fails (a new CRD still initializing), and streams again after a 410', async () => {
    const initializing = new ApiError({
      code: 429,
      reason: 'TooManyRequests',
      message: 'storage is (re)initializing',
    });
    const { client, calls } = scriptedClient(
      [list('10', cm('a', '5'))],
      [
        async () => {
          throw initializing;
        },
        async () => {
          throw gone;
        },
        async (_o, emit) => {
          emit(endOfInitialEvents('20'));
        },
      ],
    );
    const inf = new Informer(client, Kinds.ConfigMap, { backoff: { initialMs: 60_000, maxMs: 60_000 } });
    inf.start();
    await inf.waitForSync();
    expect(inf.get('ns/a')).toBeDefined();
    await until(() => calls.watches.length === 4);
    expect(calls.lists).toHaveLength(1);
    expect(calls.watches.map((w) => w.sendInitialEvents === true)).toEqual([true, false, true, false]);
    expect(calls.watches.map((w) => w.resourceVersion)).toEqual([undefined, '10', undefined, '20']);
    // neither the failed watch-list nor the 410 waited out the (one-minute) backoff
    expect(inf.restarts.error).toBe(0);
    expect(inf.list()).toEqual([]);
    await inf.stop();
  });

  it('lists, then watches, once the API server refuses watch-list', async () => {
    const refused = new ApiError({
      code: 422,
      reason: 'Invalid',
      message: 'sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled',
    });
    const { client, calls } = scriptedClient(
      [list('10', cm('a', '5')), list('20', cm('a', '5'))],
      [
        async () => {
          throw refused;
        },
        async () => {
          throw gone;
        },
      ],
    );
    const inf = new Informer(client, Kinds.ConfigMap, { backoff: fast });
    inf.start();
    await inf.waitForSync();
    await until(() => calls.watches.length === 3);
    expect(calls.lists).toHaveLength(2);
    expect(calls.watches.map((w) => w.sendInitialEvents === true)).toEqual([true, false, false]);
    expect(calls.watches.map((w) => w.resourceVersion)).toEqual([undefined, '10', '20']);
    // The refusal is not an error restart.
    expect(inf.restarts.error).toBe(0);
    await inf.stop();
  });
});
