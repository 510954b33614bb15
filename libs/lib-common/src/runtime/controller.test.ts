import { pino } from 'pino';
import { Registry } from 'prom-client';
import { describe, expect, it, vi } from 'vitest';
import { GreetingKind as Greeting } from '../../test/support/greeting.js';
import { type KindRef, Kinds } from '../client/kinds.js';
import type { KubeObject } from '../client/types.js';
import { FakeKubeClient, startFakeManager } from '../testing/fake.js';
import { InformerCache } from './cache.js';
import { ControllerBuilder, controllerOwnerKey } from './controller.js';
import { controllerMetrics } from './metrics.js';

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

describe('Controller restart', () => {
  it('does not start a key again while its run abandoned at the last stop is still going', async () => {
    const obj: KubeObject = {
      apiVersion: 'example.stackops.dev/v1alpha1',
      kind: 'Greeting',
      metadata: { name: 'g', namespace: 'ns', resourceVersion: '1' },
    };
    // Holds one Greeting (a list, or a watch-list's initial state); watches stay open until aborted.
    const client = new FakeKubeClient();
    client.seed(Greeting, obj);
    const cache = new InformerCache(client);
    const recorder = { event: async () => {}, normal: async () => {}, warning: async () => {} };
    let active = 0;
    let maxActive = 0;
    let runs = 0;
    let release!: () => void;
    const firstRunDone = new Promise<void>((r) => {
      release = r;
    });
    const controller = new ControllerBuilder<KubeObject>({ for: Greeting }, () => {}, {
      client,
      cache,
      recorder,
      logger: pino({ level: 'silent' }),
      metrics: controllerMetrics('restart-test', new Registry()),
    }).reconcile(async () => {
      runs += 1;
      active += 1;
      maxActive = Math.max(maxActive, active);
      // The first run ignores its abort signal, as a reconcile stuck in a request would.
      if (runs === 1) await firstRunDone;
      active -= 1;
    });
    cache.start();
    await controller.start();
    await vi.waitFor(() => expect(runs).toBe(1));
    expect(await controller.stop(0)).toEqual({ drained: false, abandoned: ['ns/g'] });
    const restarted = controller.start();
    await new Promise((r) => setTimeout(r, 50));
    expect(runs).toBe(1);
    release();
    await restarted;
    await vi.waitFor(() => expect(runs).toBe(2));
    expect(maxActive).toBe(1);
    await controller.stop(0);
    await cache.stop();
  });
});

describe('Controller resync', () => {
  const cm = { metadata: { name: 'c', namespace: 'ns' } };

  it('reconciles an unchanged object again after resyncMs, with no event; never with false', async () => {
    for (const [resyncMs, atLeast] of [
      [40, 3],
      [false, 1],
    ] as const) {
      const fake = new FakeKubeClient();
      fake.seed(Kinds.ConfigMap, cm);
      let runs = 0;
      const manager = await startFakeManager(fake, (m) =>
        m.controller({ for: Kinds.ConfigMap, resyncMs }).reconcile(async () => {
          runs += 1;
        }),
      );
      await new Promise((r) => setTimeout(r, 200));
      await manager.stop();
      if (resyncMs === false) expect(runs).toBe(atLeast);
      else expect(runs).toBeGreaterThanOrEqual(atLeast);
    }
  });

  it('a requeue the reconciler asked for wins over the resync', async () => {
    const fake = new FakeKubeClient();
    fake.seed(Kinds.ConfigMap, cm);
    const at: number[] = [];
    const manager = await startFakeManager(fake, (m) =>
      m.controller({ for: Kinds.ConfigMap, resyncMs: 10_000 }).reconcile(async () => {
        at.push(Date.now());
        return { requeueAfterMs: 30 };
      }),
    );
    await new Promise((r) => setTimeout(r, 200));
    await manager.stop();
    expect(at.length).toBeGreaterThanOrEqual(3);
  });
});
