import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { createKubeClient, type RestKubeClient } from '../src/client/client.js';
import { Kinds } from '../src/client/kinds.js';
import { Informer } from '../src/runtime/informer.js';
import { installCrds } from '../src/testing/crds.js';
import { loadTestKubeConfig } from '../src/testing/kubeconfig.js';
import { startTestManager } from '../src/testing/manager.js';
import { createTestNamespace, type TestNamespace } from '../src/testing/namespace.js';
import { addGreetingController, type Greeting, GreetingKind } from '../test/support/greeting.js';
import { settle } from '../test/support/settle.js';
import { heapUsed, report } from './report.js';

const N = Number(process.env['BENCH_OBJECTS'] ?? 1000);
const crds = fileURLToPath(new URL('../test/fixtures/crds', import.meta.url));
let admin: RestKubeClient;
let ns: TestNamespace;

/** Runs `fn` over items with at most `width` in flight. */
async function pool<T>(items: T[], width: number, fn: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) {
        const item = items[next++] as T;
        await fn(item);
      }
    }),
  );
}

const isReady = (g: Greeting): boolean =>
  (g.status?.conditions as { type: string; status: string }[] | undefined)?.some(
    (c) => c.type === 'Ready' && c.status === 'True',
  ) === true;

beforeAll(async () => {
  admin = createKubeClient(loadTestKubeConfig(), { fieldManager: 'bench-admin' });
  await installCrds(admin, crds);
  ns = await createTestNamespace(admin, 'bench');
});
afterAll(async () => {
  await ns.delete();
  admin.close();
});

describe(`reconciling ${N} objects against the local control plane`, () => {
  it('time to converge, writes per no-op reconcile, memory per cached object', async () => {
    const names = Array.from({ length: N }, (_, i) => `g-${String(i).padStart(5, '0')}`);
    await pool(names, 16, (name) =>
      admin.create(GreetingKind, {
        apiVersion: 'example.stackops.dev/v1alpha1',
        kind: 'Greeting',
        metadata: { name, namespace: ns.name },
        spec: { message: `hello ${name}` },
      }),
    );

    let reconciles = 0;
    const t0 = performance.now();
    const manager = await startTestManager({ name: 'bench-operator', namespaces: [ns.name] }, (m) => {
      addGreetingController(m, { concurrency: 8, onReconcile: () => (reconciles += 1) });
    });
    const controller = manager.controllerNamed('greeting');
    if (!controller) throw new Error('no controller');
    try {
      while (manager.cache.list<Greeting>(GreetingKind).filter(isReady).length < N) {
        await new Promise((r) => setTimeout(r, 50));
      }
      const seconds = (performance.now() - t0) / 1000;
      report(
        `time to reconcile ${N} objects (start → all Ready)`,
        seconds,
        's',
        `${(N / seconds).toFixed(0)} objects/s, concurrency 8`,
      );
      await settle(controller, () => reconciles, 2000, 120_000);
      report('reconciles per object until settled', reconciles / N, '', 'first pass + echoes of own writes');

      const requests = manager.client.requests;
      requests.reset();
      const before = reconciles;
      for (const name of names) controller.enqueue({ namespace: ns.name, name });
      await settle(controller, () => reconciles, 1000, 120_000);
      const noop = reconciles - before;
      report(
        'write requests per no-op reconcile',
        requests.writes() / Math.max(1, noop),
        'writes',
        `${noop} no-op reconciles, ${requests.count()} requests in all`,
      );
    } finally {
      await manager.stop();
    }

    // Memory: one informer over N ConfigMaps (the owned objects, ~300 bytes of data each).
    const client = createKubeClient(loadTestKubeConfig(), { fieldManager: 'bench-memory' });
    const base = heapUsed();
    const inf = new Informer(client, Kinds.ConfigMap, { namespaces: [ns.name] });
    inf.start();
    await inf.waitForSync();
    const cached = inf.store.size;
    const grown = heapUsed() - base;
    report(
      'memory per cached object (ConfigMap)',
      grown / cached / 1024,
      'KiB',
      `${cached} objects, managedFields dropped`,
    );
    await inf.stop();
    client.close();
  });
});
