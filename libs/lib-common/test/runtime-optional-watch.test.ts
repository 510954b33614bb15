import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createKubeClient, type RestKubeClient } from '../src/client/client.js';
import { type KindRef, Kinds } from '../src/client/kinds.js';
import type { KubeObject, ListOptions } from '../src/client/types.js';
import type { Controller } from '../src/runtime/controller.js';
import type { Manager } from '../src/runtime/manager.js';
import { installCrds } from '../src/testing/crds.js';
import { loadTestKubeConfig } from '../src/testing/kubeconfig.js';
import { startTestManager } from '../src/testing/manager.js';
import { createTestNamespace, type TestNamespace } from '../src/testing/namespace.js';
import { eventually } from '../src/testing/wait.js';
import { type Greeting, GreetingKind } from './support/greeting.js';

const crds = fileURLToPath(new URL('./fixtures/crds', import.meta.url));
const kc = loadTestKubeConfig();
// A group of its own per run: the kind is absent when the test starts, even on a reused cluster.
const group = `w${Date.now().toString(36)}.optional.stackops.dev`;
const WidgetKind: KindRef = { group, version: 'v1', kind: 'Widget', plural: 'widgets', namespaced: true };
const widgetCrd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `widgets.${group}` },
  spec: {
    group,
    scope: 'Namespaced',
    names: { kind: 'Widget', plural: 'widgets', singular: 'widget', listKind: 'WidgetList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
              status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
            },
          },
        },
      },
    ],
  },
};

let admin: RestKubeClient;
let ns: TestNamespace;
let manager: Manager | undefined;

beforeAll(async () => {
  admin = createKubeClient(kc, { fieldManager: 'test-admin' });
  await installCrds(admin, crds);
});
afterAll(async () => {
  await admin.delete(Kinds.CustomResourceDefinition, { name: widgetCrd.metadata.name });
  admin.close();
});
beforeEach(async () => {
  ns = await createTestNamespace(admin, 'optional-watch');
});
afterEach(async () => {
  await manager?.stop();
  manager = undefined;
  await ns.delete();
});

describe('owns/referencedBy(kind, …, { optional: true })', () => {
  it('runs without the CRD, starts watching when it is installed, and a status change wakes the primary at once', async () => {
    // The reconciler never asks to run again: every pass after the first comes from a watch event.
    const passes: string[] = [];
    // Every list of the optional kind (its presence checks and the informer's lists), by namespace.
    const widgetLists: string[] = [];
    const client = createKubeClient(kc, { fieldManager: 'optional-watch-test' });
    const list = client.list.bind(client);
    client.list = ((kind, opts: ListOptions = {}) => {
      if (kind.kind === 'Widget') widgetLists.push(opts.namespace ?? 'ALL');
      return list(kind, opts);
    }) as typeof client.list;
    let controller: Controller<Greeting> | undefined;
    manager = await startTestManager({ name: 'optional-watch', namespaces: [ns.name], client }, (m) => {
      controller = m
        .controller<Greeting>({ for: GreetingKind, name: 'greeting', optionalKindRecheckMs: 500 })
        .referencedBy(WidgetKind, (g) => [g.spec.message], { optional: true })
        .reconcile(async (g) => {
          passes.push(g.metadata.name ?? '');
        });
    });
    const c = controller as Controller<Greeting>;
    await admin.create(GreetingKind, {
      apiVersion: 'example.stackops.dev/v1alpha1',
      kind: 'Greeting',
      metadata: { name: 'g', namespace: ns.name },
      spec: { message: 'w1' },
    });
    await eventually(() => expect(passes).toEqual(['g']));
    expect(c.optionalKinds).toEqual([{ kind: WidgetKind, watching: false }]);

    await installCrds(admin, [widgetCrd as KubeObject]);
    await eventually(() => expect(c.optionalKinds[0]?.watching).toBe(true), { timeoutMs: 10_000 });
    // Checked in the watched namespace (a namespaced Role allows no cluster-wide list); once
    // watching, no more checks: an idle operator sends nothing but its watches.
    expect(new Set(widgetLists)).toEqual(new Set([ns.name]));
    await new Promise((r) => setTimeout(r, 1_000));
    const listsWhileWatching = widgetLists.length;

    const before = passes.length;
    await admin.create(WidgetKind, {
      apiVersion: `${group}/v1`,
      kind: 'Widget',
      metadata: { name: 'w1', namespace: ns.name },
      spec: {},
    });
    await eventually(() => expect(passes.length).toBeGreaterThan(before), { timeoutMs: 5_000 });

    // A widget no Greeting names wakes nothing; a status change of the named one does.
    await admin.create(WidgetKind, {
      apiVersion: `${group}/v1`,
      kind: 'Widget',
      metadata: { name: 'other', namespace: ns.name },
      spec: {},
    });
    await new Promise((r) => setTimeout(r, 1_000));
    const settled = passes.length;
    const started = Date.now();
    await admin.patch(WidgetKind, { name: 'w1', namespace: ns.name }, { status: { ready: true } }, 'merge', {
      subresource: 'status',
    });
    await eventually(() => expect(passes.length).toBe(settled + 1), { timeoutMs: 5_000 });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(widgetLists.length).toBe(listsWhileWatching);
  });
});
