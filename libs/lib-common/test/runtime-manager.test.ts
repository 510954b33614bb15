import { fileURLToPath } from 'node:url';
import { Registry } from 'prom-client';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Kinds } from '../src/client/kinds.js';
import type { KubeObject } from '../src/client/types.js';
import { createLogger } from '../src/logging/logger.js';
import type { Lease } from '../src/runtime/leader.js';
import { Manager } from '../src/runtime/manager.js';
import { loadTestKubeConfig } from '../src/testing/kubeconfig.js';
import { startTestManager } from '../src/testing/manager.js';
import { useTestNamespace } from '../src/testing/namespace.js';
import { eventually, waitFor } from '../src/testing/wait.js';
import { addGreetingController, type Greeting, GreetingKind, greeting } from './support/greeting.js';

const crds = fileURLToPath(new URL('./fixtures/crds', import.meta.url));
const env = useTestNamespace({ beforeAll, afterAll, beforeEach, afterEach }, { prefix: 'runtime-mgr', crds });
let managers: Manager[];

beforeEach(async () => {
  managers = [];
});
afterEach(async () => {
  await Promise.all(managers.map((m) => m.stop()));
});

const create = (name: string) => env.admin.create(GreetingKind, greeting(env.ns.name, name));
/** A kind with no such resource: its informer cannot list, so it never syncs. */
const NothingKind = {
  group: 'example.stackops.dev',
  version: 'v1alpha1',
  kind: 'Nothing',
  plural: 'nothings',
  namespaced: true,
};

const get = async (port: number | undefined, path: string): Promise<{ status: number; body: string }> => {
  const res = await fetch(`http://127.0.0.1:${port}${path}`);
  return { status: res.status, body: await res.text() };
};

describe('Manager', () => {
  it('serves /healthz, /readyz and /metrics on 127.0.0.1 with controller-runtime metric names', async () => {
    const m = await startTestManager(
      { name: 'greeting-operator', namespaces: [env.ns.name], metricsPort: 0, probePort: 0 },
      (mgr) => addGreetingController(mgr),
    );
    managers.push(m);
    expect(m.address('probes')?.host).toBe('127.0.0.1');
    expect(m.address('metrics')?.host).toBe('127.0.0.1');
    const probes = m.address('probes')?.port;
    expect(await get(probes, '/healthz')).toEqual({ status: 200, body: 'ok\n' });
    expect(await get(probes, '/readyz')).toEqual({ status: 200, body: 'ok\n' });
    expect((await get(probes, '/nope')).status).toBe(404);

    await create('measured');
    await waitFor<Greeting>(
      env.admin,
      GreetingKind,
      { namespace: env.ns.name, name: 'measured' },
      (g) => g?.status !== undefined,
    );
    const metrics = await eventually(async () => {
      const { body } = await get(m.address('metrics')?.port, '/metrics');
      expect(body).toMatch(
        /controller_runtime_reconcile_total\{controller="greeting",result="success"\} [1-9]/,
      );
      return body;
    });
    expect(metrics).toMatch(
      /controller_runtime_reconcile_time_seconds_bucket\{le="[^"]+",controller="greeting"\}/,
    );
    expect(metrics).toMatch(/workqueue_depth\{name="greeting",controller="greeting"\} 0/);
    expect(metrics).toMatch(/workqueue_adds_total\{name="greeting",controller="greeting"\} [1-9]/);
    expect(metrics).toMatch(
      /rest_client_requests_total\{code="201",method="PATCH",verb="apply",host="127\.0\.0\.1:\d+"\} [1-9]/,
    );
    expect(metrics).toMatch(
      /rest_client_requests_total\{code="200",method="GET",verb="watch",host="127\.0\.0\.1:\d+"\} [1-9]/,
    );
    expect(metrics).toContain('# TYPE stackops_informer_restarts_total counter');
    expect(metrics).toMatch(
      /stackops_informer_objects\{kind="Greeting\.v1alpha1\.example\.stackops\.dev"\} 1/,
    );
    expect(metrics).toContain('process_cpu_user_seconds_total');
  });

  it('on shutdown lets an in-flight reconcile finish within the deadline, then releases everything', async () => {
    let finished = 0;
    let started = 0;
    const m = await startTestManager(
      { name: 'slow-operator', namespaces: [env.ns.name], gracefulShutdownTimeoutMs: 10_000, probePort: 0 },
      (mgr) =>
        mgr.controller<Greeting>({ for: GreetingKind }).reconcile(async () => {
          started += 1;
          await new Promise((r) => setTimeout(r, 1500));
          finished += 1;
        }),
    );
    managers.push(m);
    await create('slow');
    await eventually(() => expect(started).toBe(1));
    const t0 = Date.now();
    await m.stop();
    expect(finished).toBe(1);
    expect(Date.now() - t0).toBeLessThan(5000);
    await expect(fetch(`http://127.0.0.1:${m.address('probes')?.port}/healthz`)).rejects.toThrow();
  });

  it('aborts reconciles still running at the shutdown deadline', async () => {
    let aborted = false;
    const m = await startTestManager(
      { name: 'stuck-operator', namespaces: [env.ns.name], gracefulShutdownTimeoutMs: 300 },
      (mgr) =>
        mgr.controller<Greeting>({ for: GreetingKind }).reconcile(
          (_g, ctx) =>
            new Promise((resolve) => {
              ctx.signal.addEventListener('abort', () => {
                aborted = true;
                resolve(undefined);
              });
            }),
        ),
    );
    managers.push(m);
    await create('stuck');
    await eventually(() => expect(m.controllerNamed('greeting')?.stats.running).toBe(1));
    const t0 = Date.now();
    await m.stop();
    expect(aborted).toBe(true);
    expect(Date.now() - t0).toBeLessThan(3000);
  });

  it('shuts down gracefully on SIGTERM and then exits 0', async () => {
    const m = await startTestManager({ name: 'signalled-operator', namespaces: [env.ns.name] }, (mgr) =>
      addGreetingController(mgr),
    );
    managers.push(m);
    const exits: number[] = [];
    const remove = m.stopOnSignals({ exit: (code) => exits.push(code) });
    try {
      process.emit('SIGTERM', 'SIGTERM');
      await m.done;
      await eventually(() => expect(exits).toEqual([0]));
      expect(m.readiness()).toBe('manager stopped');
    } finally {
      remove();
    }
  });

  it('is not ready until its informers synced', async () => {
    const m = await startTestManager({ name: 'ready-operator', namespaces: [env.ns.name] }, (mgr) =>
      addGreetingController(mgr),
    );
    managers.push(m);
    expect(m.readiness()).toBeUndefined();
    // a kind whose informer cannot list (no such resource) keeps it unready
    m.cache.informer(NothingKind);
    expect(m.readiness()).toMatch(/informers not synced: Nothing/);
  });

  it("starts its controllers' workers once every informer of the process synced, or after cachesWaitMs", async () => {
    await create('gated');
    const m = new Manager({
      name: 'gated-operator',
      kubeConfig: loadTestKubeConfig(),
      registry: new Registry(),
      logger: createLogger({ name: 'gated', level: process.env['LOG_LEVEL'] ?? 'warn', pretty: false }),
      namespaces: [env.ns.name],
      cachesWaitMs: 1500,
    });
    managers.push(m);
    let firstPassAt: number | undefined;
    m.controller<Greeting>({ for: GreetingKind }).reconcile(async () => {
      firstPassAt ??= performance.now();
    });
    m.cache.informer(NothingKind);
    const started = performance.now();
    await m.start();
    await m.cache.waitForSync([GreetingKind]);
    await eventually(() => expect(firstPassAt).toBeDefined(), { timeoutMs: 10_000 });
    // Its own informer synced at once; the workers waited for the one that cannot, until the bound.
    expect((firstPassAt ?? 0) - started).toBeGreaterThanOrEqual(1400);
    expect(m.readiness()).toBe('informers not synced: Nothing');
  });
});

describe('Manager on a host (several operators in one process, ADR 0044)', () => {
  it("starts a member's controllers once every member's informers synced (ADR 0061)", async () => {
    await create('hosted-gated');
    const kubeConfig = loadTestKubeConfig();
    const registry = new Registry();
    const logger = createLogger({ name: 'host', level: process.env['LOG_LEVEL'] ?? 'warn', pretty: false });
    const host = new Manager({ name: 'gated-host', kubeConfig, registry, logger, cachesWaitMs: 1500 });
    const member = (name: string) =>
      new Manager({ name, kubeConfig, registry, logger, namespaces: [env.ns.name], host });
    const a = member('a-operator');
    const b = member('b-operator');
    let firstPassAt: number | undefined;
    a.controller<Greeting>({ for: GreetingKind }).reconcile(async () => {
      firstPassAt ??= performance.now();
    });
    b.cache.informer(NothingKind); // b's informer cannot sync
    managers.push(a, b, host);
    const started = performance.now();
    await host.start();
    await Promise.all([a.start(), b.start()]);
    await a.cache.waitForSync();
    await eventually(() => expect(firstPassAt).toBeDefined(), { timeoutMs: 10_000 });
    expect((firstPassAt ?? 0) - started).toBeGreaterThanOrEqual(1400);
    expect(host.readiness()).toBe('informers not synced: Nothing');
  });

  it('shares the connection, the informers of a kind cached alike and the probes; each member leads on its own Lease and writes as itself', async () => {
    const kubeConfig = loadTestKubeConfig();
    const registry = new Registry();
    const logger = createLogger({ name: 'host', level: process.env['LOG_LEVEL'] ?? 'warn', pretty: false });
    const ns = env.ns.name;
    const host = new Manager({
      name: 'two-operators',
      kubeConfig,
      registry,
      logger,
      namespaces: [ns],
      probePort: 0,
    });
    const member = (name: string) =>
      new Manager({
        name,
        kubeConfig,
        registry,
        logger: logger.child({ name }),
        namespaces: [ns],
        host,
        leaderElection: { namespace: ns, leaseDurationMs: 4_000, renewDeadlineMs: 3_000, retryPeriodMs: 500 },
        gracefulShutdownTimeoutMs: 5_000,
      });
    const a = member('a-operator');
    const b = member('b-operator');
    addGreetingController(a);
    b.controller<Greeting>({ for: GreetingKind, name: 'greeting-b' })
      .owns(Kinds.ConfigMap, { labelSelector: 'b-operator=yes' })
      .reconcile(async () => undefined);
    // Greetings are cached alike: one informer. ConfigMaps through other selectors: one each.
    expect(b.cache.informer(GreetingKind)).toBe(a.cache.informer(GreetingKind));
    expect(b.cache.informer(Kinds.ConfigMap)).not.toBe(a.cache.informer(Kinds.ConfigMap));
    try {
      await host.start();
      // The host serves while its members start, and is not ready before every one of them did.
      expect(host.readiness()).toBe('operators not started: a-operator, b-operator');
      await a.start();
      expect(host.readiness()).toBe('operators not started: b-operator');
      await b.start();
      const probes = host.address('probes')?.port;
      expect(a.address('probes')).toBeUndefined();
      await eventually(async () =>
        expect(await get(probes, '/readyz')).toEqual({ status: 200, body: 'ok\n' }),
      );
      for (const name of ['a-operator', 'b-operator'])
        await waitFor<Lease>(env.admin, Kinds.Lease, { namespace: ns, name: `${name}-leader` }, (l) =>
          Boolean(l?.spec?.holderIdentity),
        );
      await create('hosted');
      const cm = await waitFor<KubeObject>(
        env.admin,
        Kinds.ConfigMap,
        { namespace: ns, name: 'hosted-greeting' },
        (c) => c !== undefined,
      );
      expect(
        (cm?.metadata as { managedFields?: { manager: string }[] } | undefined)?.managedFields?.map(
          (f) => f.manager,
        ),
      ).toContain('stackops-a-operator');
    } finally {
      await Promise.all([a.stop(), b.stop()]);
      await host.stop();
    }
    // Each member handed its Lease back on the way out.
    for (const name of ['a-operator', 'b-operator'])
      expect(
        (await env.admin.get<Lease>(Kinds.Lease, { namespace: ns, name: `${name}-leader` }))?.spec
          ?.holderIdentity,
      ).toBe('');
  });
});
