import { pino } from 'pino';
import { Registry } from 'prom-client';
import { describe, expect, it, vi } from 'vitest';
import { type KindRef, Kinds, kindKey } from '../client/kinds.js';
import type { KubeClient, KubeObject, ListOptions, WatchEvent, WatchOptions } from '../client/types.js';
import { InformerCache } from './cache.js';
import { ControllerBuilder } from './controller.js';
import { ReconcileError, TerminalError } from './error-policy.js';
import { controllerMetrics } from './metrics.js';

const Greeting: KindRef = {
  group: 'example.stackops.dev',
  version: 'v1alpha1',
  kind: 'Greeting',
  plural: 'greetings',
  namespaced: true,
};

interface Greeting extends KubeObject {
  spec: { secret: string };
}

const greeting = (name: string, secret: string): Greeting => ({
  apiVersion: 'example.stackops.dev/v1alpha1',
  kind: 'Greeting',
  metadata: { name, namespace: 'ns', resourceVersion: '1' },
  spec: { secret },
});

/**
 * Serves what it was given per kind (honouring the label selector) to a list or a watch-list,
 * records each such read, and lets the test push watch events.
 */
function scriptedClient(objects: Record<string, KubeObject[]>) {
  const reads: { kind: string; labelSelector?: string }[] = [];
  const watchers = new Map<string, (e: WatchEvent) => void>();
  const read = (kind: KindRef, opts: ListOptions) => {
    reads.push({ kind: kind.kind, ...(opts.labelSelector ? { labelSelector: opts.labelSelector } : {}) });
    const [k, v] = opts.labelSelector?.split('=') ?? [];
    return (objects[kindKey(kind)] ?? []).filter((o) => !k || o.metadata.labels?.[k] === v);
  };
  const client = {
    fieldManager: 'test',
    async list(kind: KindRef, opts: ListOptions = {}) {
      return { items: read(kind, opts), metadata: { resourceVersion: '1' } };
    },
    async watch(kind: KindRef, opts: WatchOptions, onEvent: (e: WatchEvent) => void) {
      watchers.set(kindKey(kind), onEvent);
      if (opts.sendInitialEvents) {
        for (const object of read(kind, opts)) onEvent({ type: 'ADDED', object });
        onEvent({
          type: 'BOOKMARK',
          object: {
            metadata: { resourceVersion: '1', annotations: { 'k8s.io/initial-events-end': 'true' } },
          },
        });
      }
      await new Promise<void>((resolve) => opts.signal?.addEventListener('abort', () => resolve()));
    },
  } as unknown as KubeClient;
  const emit = (kind: KindRef, e: WatchEvent) => watchers.get(kindKey(kind))?.(e);
  return { client, reads, emit };
}

function deps(client: KubeClient, cache = new InformerCache(client)) {
  const events: { reason: string; message: string }[] = [];
  const recorder = {
    event: async () => {},
    normal: async () => {},
    warning: async (_o: KubeObject, reason: string, message: string) => {
      events.push({ reason, message });
    },
  };
  return {
    cache,
    events,
    deps: {
      client,
      cache,
      recorder,
      logger: pino({ level: 'silent' }),
      metrics: controllerMetrics('sources-test', new Registry()),
    },
  };
}

describe('per-kind cache options', () => {
  it('owns(kind, {labelSelector}) reads and caches only the matching objects', async () => {
    const mine = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'a', namespace: 'ns', labels: { app: 'x' } },
    };
    const other = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b', namespace: 'ns' } };
    const { client, reads } = scriptedClient({ [kindKey(Kinds.ConfigMap)]: [mine, other] });
    const { cache, deps: d } = deps(client);
    new ControllerBuilder<Greeting>({ for: Greeting }, () => {}, d)
      .owns(Kinds.ConfigMap, { labelSelector: 'app=x' })
      .reconcile(async () => {});
    cache.start();
    await cache.waitForSync();
    expect(reads).toContainEqual({ kind: 'ConfigMap', labelSelector: 'app=x' });
    expect(cache.list(Kinds.ConfigMap).map((o) => o.metadata.name)).toEqual(['a']);
    await cache.stop();
  });

  it('refuses a second declaration of a kind with another selector', () => {
    const { client } = scriptedClient({});
    const { deps: d } = deps(client);
    new ControllerBuilder<Greeting>({ for: Greeting, name: 'one' }, () => {}, d)
      .owns(Kinds.ConfigMap, { labelSelector: 'app=x' })
      .reconcile(async () => {});
    expect(() =>
      new ControllerBuilder<Greeting>({ for: Greeting, name: 'two' }, () => {}, d)
        .owns(Kinds.ConfigMap)
        .owns(Kinds.ConfigMap, { labelSelector: 'app=y' })
        .reconcile(async () => {}),
    ).toThrow(/ConfigMap is already cached with labels app=x; cannot also cache it with labels app=y/);
  });
});

describe('referencedBy', () => {
  it('a change to a Secret enqueues the Greetings of its namespace that name it', async () => {
    const { client, emit } = scriptedClient({
      [kindKey(Greeting)]: [greeting('uses-a', 'a'), greeting('uses-b', 'b'), greeting('also-a', 'a')],
    });
    const { cache, deps: d } = deps(client);
    const seen: string[] = [];
    const controller = new ControllerBuilder<Greeting>({ for: Greeting }, () => {}, d)
      .referencedBy(Kinds.Secret, (g) => [g.spec.secret])
      .reconcile(async (g) => {
        seen.push(g.metadata.name ?? '');
      });
    cache.start();
    await controller.start();
    await vi.waitFor(() => expect(seen).toHaveLength(3));
    seen.length = 0;
    emit(Kinds.Secret, {
      type: 'ADDED',
      object: {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'a', namespace: 'ns', resourceVersion: '2' },
      },
    });
    await vi.waitFor(() => expect(seen.sort()).toEqual(['also-a', 'uses-a']));
    emit(Kinds.Secret, {
      type: 'ADDED',
      object: {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'a', namespace: 'other', resourceVersion: '3' },
      },
    });
    await new Promise((r) => setTimeout(r, 30));
    expect(seen.sort()).toEqual(['also-a', 'uses-a']);
    await controller.stop(0);
    await cache.stop();
  });
});

describe('error policy', () => {
  async function runFailing(err: unknown, opts: { errorPolicy?: () => 'terminal' | undefined } = {}) {
    const { client } = scriptedClient({ [kindKey(Greeting)]: [greeting('g', 's')] });
    const { cache, events, deps: d } = deps(client);
    let runs = 0;
    const controller = new ControllerBuilder<Greeting>(
      { for: Greeting, backoff: { initialMs: 5, maxMs: 5, factor: 1, jitter: 0 }, ...opts },
      () => {},
      d,
    ).reconcile(async () => {
      runs += 1;
      throw err;
    });
    cache.start();
    await controller.start();
    await new Promise((r) => setTimeout(r, 120));
    await controller.stop(0);
    await cache.stop();
    return { runs, events };
  }

  it('a TerminalError is one Warning Event and no retry', async () => {
    const { runs, events } = await runFailing(
      new TerminalError('size must be positive', { reason: 'InvalidSize' }),
    );
    expect(runs).toBe(1);
    expect(events).toEqual([{ reason: 'InvalidSize', message: 'size must be positive' }]);
  });

  it('a ReconcileError with {requeueAfterMs} comes back after that delay, not with backoff', async () => {
    const { runs, events } = await runFailing(
      new ReconcileError('waiting for hosts', { reason: 'NotEnoughHosts', retry: { requeueAfterMs: 50 } }),
    );
    expect(runs).toBeGreaterThanOrEqual(2);
    expect(runs).toBeLessThanOrEqual(3);
    expect(events).toEqual([]);
  });

  it('any other error retries with backoff; the policy hook can call it terminal', async () => {
    const retried = await runFailing(new Error('boom'));
    expect(retried.runs).toBeGreaterThan(5);
    const stopped = await runFailing(new Error('boom'), { errorPolicy: () => 'terminal' });
    expect(stopped.runs).toBe(1);
    expect(stopped.events).toEqual([{ reason: 'ReconcileFailed', message: 'boom' }]);
  });
});
