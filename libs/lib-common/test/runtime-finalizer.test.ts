import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Kinds } from '../src/client/kinds.js';
import type { KubeObject } from '../src/client/types.js';
import { ConditionType } from '../src/conditions/index.js';
import { applyOwned } from '../src/objects/apply.js';
import { type Pass, pipeline } from '../src/pipeline/index.js';
import type { Manager } from '../src/runtime/manager.js';
import { startTestManager } from '../src/testing/manager.js';
import { useTestNamespace } from '../src/testing/namespace.js';
import { eventually, waitFor, waitForDeletion } from '../src/testing/wait.js';
import { configMapName, type Greeting, GreetingKind, greeting } from './support/greeting.js';

const FINALIZER = 'example.stackops.dev/cleanup';
const crds = fileURLToPath(new URL('./fixtures/crds', import.meta.url));
const env = useTestNamespace({ beforeAll, afterAll, beforeEach, afterEach }, { prefix: 'runtime-fin', crds });
let manager: Manager;
let cleanups: { key: string; at: number; ok: boolean }[];

beforeEach(async () => {
  cleanups = [];
  manager = await startTestManager({ name: 'greeting-operator', namespaces: [env.ns.name] }, (m) => {
    m.controller<Greeting>({ for: GreetingKind, backoff: { initialMs: 200, maxMs: 10_000 } })
      .owns(Kinds.ConfigMap)
      .reconcile(reconcileWithFinalizer);
  });
});
afterEach(async () => {
  await manager.stop();
});

/** The example Greeting as a pipeline with a finalizer whose cleanup "releases an external resource". */
const reconcileWithFinalizer = pipeline<Greeting>({
  kind: GreetingKind,
  conditions: [ConditionType.ServiceConfigReady],
  finalizer: {
    name: FINALIZER,
    cleanup: [
      function releaseExternal(p: Pass<Greeting>) {
        const ok = p.cr.spec.failCleanup !== true;
        cleanups.push({ key: `${p.cr.metadata.namespace}/${p.cr.metadata.name}`, at: Date.now(), ok });
        if (!ok) throw new Error('external resource could not be released');
      },
    ],
  },
  steps: [
    async function ensureConfigMap(p: Pass<Greeting>) {
      const ref = { namespace: p.cr.metadata.namespace ?? '', name: configMapName(p.cr) };
      await applyOwned(
        p.client,
        p.cr,
        Kinds.ConfigMap,
        { metadata: ref, data: { message: p.cr.spec.message } },
        { current: p.cache.get<KubeObject>(Kinds.ConfigMap, ref) ?? null },
      );
      p.conditions.markTrue(ConditionType.ServiceConfigReady);
    },
  ],
});

const create = (name: string, spec: Greeting['spec']) =>
  env.admin.create(GreetingKind, greeting(env.ns.name, name, spec));

describe('finalizers', () => {
  it('adds the finalizer, runs cleanup once on deletion, and lets the deletion complete', async () => {
    await create('tidy', { message: 'm' });
    const ref = { namespace: env.ns.name, name: 'tidy' };
    const live = await waitFor<Greeting>(
      env.admin,
      GreetingKind,
      ref,
      (g) =>
        (g?.status?.conditions as { type: string; status: string }[] | undefined)?.[0]?.status === 'True',
    );
    expect(live?.metadata.finalizers).toEqual([FINALIZER]);
    expect(live?.status?.observedGeneration).toBe(live?.metadata.generation);
    expect(
      await env.admin.get(Kinds.ConfigMap, { namespace: env.ns.name, name: 'tidy-greeting' }),
    ).toBeDefined();
    await env.admin.delete(GreetingKind, ref);
    await waitForDeletion(env.admin, GreetingKind, ref);
    await new Promise((r) => setTimeout(r, 500));
    expect(cleanups).toEqual([{ key: `${env.ns.name}/tidy`, at: expect.any(Number), ok: true }]);
  });

  it('keeps the object while cleanup fails, retrying with growing delays, then completes', async () => {
    await create('stuck', { message: 'm', failCleanup: true });
    const ref = { namespace: env.ns.name, name: 'stuck' };
    // Fully reconciled first (finalizer, ConfigMap, status), so few events of the create are still
    // on their way when the delete is.
    await waitFor<Greeting>(
      env.admin,
      GreetingKind,
      ref,
      (g) =>
        g?.metadata.finalizers?.includes(FINALIZER) === true &&
        (g?.status?.conditions as { type: string; status: string }[] | undefined)?.[0]?.status === 'True',
    );
    await env.admin.delete(GreetingKind, ref);
    await eventually(() => {
      if (cleanups.length < 5) throw new Error(`only ${cleanups.length} cleanup attempts`);
    });
    const stillThere = await env.admin.get<Greeting>(GreetingKind, ref);
    expect(stillThere?.metadata.deletionTimestamp).toBeTruthy();
    expect(stillThere?.metadata.finalizers).toEqual([FINALIZER]);
    const gaps = cleanups.slice(1).map((c, i) => c.at - (cleanups[i]?.at ?? 0));
    // 200 ms, 400 ms, 800 ms… An event of the object that arrives while the first attempt runs
    // (as with client-go's queue) runs it again at once, so the first gap may be ~0; the later
    // ones are the backoff's alone.
    expect(gaps[1]).toBeGreaterThanOrEqual(150);
    expect(gaps[3]).toBeGreaterThan(gaps[1] ?? 0);
    expect(cleanups.every((c) => !c.ok)).toBe(true);

    await env.admin.patch(GreetingKind, ref, { spec: { failCleanup: false } }, 'merge');
    await waitForDeletion(env.admin, GreetingKind, ref);
    expect(cleanups.filter((c) => c.ok)).toHaveLength(1);
  });
});
