import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createKubeClient, type RestKubeClient, serviceAccountUser } from '../src/client/client.js';
import { type KindRef, Kinds } from '../src/client/kinds.js';
import type { KubeObject, ListOptions } from '../src/client/types.js';
import type { Controller } from '../src/runtime/controller.js';
import type { Manager } from '../src/runtime/manager.js';
import { optionalKindServed, readExternal } from '../src/runtime/optional-watch.js';
import { installCrds } from '../src/testing/crds.js';
import { loadTestKubeConfig } from '../src/testing/kubeconfig.js';
import { startTestManager } from '../src/testing/manager.js';
import { useTestNamespace } from '../src/testing/namespace.js';
import { eventually } from '../src/testing/wait.js';
import { type Greeting, GreetingKind } from './support/greeting.js';

const crds = fileURLToPath(new URL('./fixtures/crds', import.meta.url));
const kc = loadTestKubeConfig();
// A group of its own per run: the kind is absent when the test starts, even on a reused cluster.
const group = `w${Date.now().toString(36)}.optional.stackops.dev`;
const WidgetKind: KindRef = { group, version: 'v1', kind: 'Widget', plural: 'widgets', namespaced: true };
const widgetCrd = crdOf(WidgetKind);
/** Each test installs its own kind (a CRD cannot be uninstalled and reinstalled fast enough). */
const crdsToDelete: string[] = [widgetCrd.metadata.name];

function crdOf(kind: KindRef) {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${kind.plural}.${kind.group}` },
    spec: {
      group: kind.group,
      scope: 'Namespaced',
      names: {
        kind: kind.kind,
        plural: kind.plural,
        singular: kind.kind.toLowerCase(),
        listKind: `${kind.kind}List`,
      },
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
}

const env = useTestNamespace(
  { beforeAll, afterAll, beforeEach, afterEach },
  { prefix: 'optional-watch', crds },
);
let manager: Manager | undefined;

afterAll(async () => {
  for (const name of crdsToDelete) await env.admin.delete(Kinds.CustomResourceDefinition, { name });
});
afterEach(async () => {
  await manager?.stop();
  manager = undefined;
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
    // Its watches, by namespace: the informer syncs with a watch-list request, and lists only when
    // the API server refuses that (a CRD installed a moment before can answer 429).
    const widgetWatches: string[] = [];
    const watch = client.watch.bind(client);
    client.watch = ((kind, o, onEvent) => {
      if (kind.kind === 'Widget') widgetWatches.push(o.namespace ?? 'ALL');
      return watch(kind, o, onEvent);
    }) as typeof client.watch;
    let controller: Controller<Greeting> | undefined;
    manager = await startTestManager({ name: 'optional-watch', namespaces: [env.ns.name], client }, (m) => {
      controller = m
        .controller<Greeting>({ for: GreetingKind, name: 'greeting', optionalKindRecheckMs: 500 })
        .referencedBy(WidgetKind, (g) => [g.spec.message], { optional: true })
        .reconcile(async (g) => {
          passes.push(g.metadata.name ?? '');
        });
    });
    const c = controller as Controller<Greeting>;
    await env.admin.create(GreetingKind, {
      apiVersion: 'example.stackops.dev/v1alpha1',
      kind: 'Greeting',
      metadata: { name: 'g', namespace: env.ns.name },
      spec: { message: 'w1' },
    });
    await eventually(() => expect(passes).toEqual(['g']));
    expect(c.optionalKinds).toEqual([{ kind: WidgetKind, watching: false }]);

    await installCrds(env.admin, [widgetCrd as KubeObject]);
    await eventually(() => expect(c.optionalKinds[0]?.watching).toBe(true), { timeoutMs: 10_000 });
    // Checked in the watched namespace (a namespaced Role allows no cluster-wide list); once
    // watching, no more checks: an idle operator sends nothing but its watches.
    expect(new Set([...widgetLists, ...widgetWatches])).toEqual(new Set([env.ns.name]));
    await new Promise((r) => setTimeout(r, 1_000));
    const listsWhileWatching = widgetLists.length;

    const before = passes.length;
    await env.admin.create(WidgetKind, {
      apiVersion: `${group}/v1`,
      kind: 'Widget',
      metadata: { name: 'w1', namespace: env.ns.name },
      spec: {},
    });
    await eventually(() => expect(passes.length).toBeGreaterThan(before), { timeoutMs: 5_000 });

    // A widget no Greeting names wakes nothing; a status change of the named one does.
    await env.admin.create(WidgetKind, {
      apiVersion: `${group}/v1`,
      kind: 'Widget',
      metadata: { name: 'other', namespace: env.ns.name },
      spec: {},
    });
    await new Promise((r) => setTimeout(r, 1_000));
    const settled = passes.length;
    const started = Date.now();
    await env.admin.patch(
      WidgetKind,
      { name: 'w1', namespace: env.ns.name },
      { status: { ready: true } },
      'merge',
      {
        subresource: 'status',
      },
    );
    await eventually(() => expect(passes.length).toBe(settled + 1), { timeoutMs: 5_000 });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(widgetLists.length).toBe(listsWhileWatching);
  });
});

/** A client that notes every get, list and watch it sends (`<verb> <plural>`). */
function countingClient(opts: { impersonate?: ReturnType<typeof serviceAccountUser> } = {}): {
  client: RestKubeClient;
  calls: string[];
} {
  const client = createKubeClient(kc, { fieldManager: 'optional-watch-test', ...opts });
  const calls: string[] = [];
  const get = client.get.bind(client);
  const list = client.list.bind(client);
  const watch = client.watch.bind(client);
  client.get = ((kind, ref) => {
    calls.push(`get ${kind.plural}`);
    return get(kind, ref);
  }) as typeof client.get;
  client.list = ((kind, o) => {
    calls.push(`list ${kind.plural}`);
    return list(kind, o);
  }) as typeof client.list;
  client.watch = ((kind, o, onEvent) => {
    calls.push(`watch ${kind.plural}`);
    return watch(kind, o, onEvent);
  }) as typeof client.watch;
  return { client, calls };
}

const freshKind = (prefix: string): KindRef => {
  const kind: KindRef = {
    group: `${prefix}${Date.now().toString(36)}.optional.stackops.dev`,
    version: 'v1',
    kind: 'Gadget',
    plural: 'gadgets',
    namespaced: true,
  };
  crdsToDelete.push(`${kind.plural}.${kind.group}`);
  return kind;
};

const greeting = (name: string, message: string): Greeting => ({
  apiVersion: 'example.stackops.dev/v1alpha1',
  kind: 'Greeting',
  metadata: { name, namespace: env.ns.name },
  spec: { message },
});

const gadget = (kind: KindRef, name: string): KubeObject => ({
  apiVersion: `${kind.group}/${kind.version}`,
  kind: kind.kind,
  metadata: { name, namespace: env.ns.name },
  spec: {},
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Starts a manager whose Greeting controller names a `kind` object (`spec.message`) and reads it
 * with `readExternal` on every pass; `seen` gets its name, or "none", pass after pass.
 */
async function startReader(
  name: string,
  kind: KindRef,
  client: RestKubeClient,
  opts: { optionalKindRecheckMs?: number } = {},
): Promise<{ seen: string[]; controller: Controller<Greeting> }> {
  const seen: string[] = [];
  let controller: Controller<Greeting> | undefined;
  manager = await startTestManager({ name, namespaces: [env.ns.name], client, kubeConfig: kc }, (m) => {
    controller = m
      .controller<Greeting>({ for: GreetingKind, name: 'greeting', ...opts })
      .referencedBy(kind, (g) => [g.spec.message], { optional: true })
      .reconcile(async (g, ctx) => {
        const obj = await readExternal(ctx, kind, { namespace: env.ns.name, name: g.spec.message });
        seen.push(obj?.metadata.name ?? 'none');
      });
  });
  return { seen, controller: controller as Controller<Greeting> };
}

describe('optional kinds: presence from a watch of their CRD, reads from their watch (readExternal)', () => {
  it('while the CRD is absent sends nothing but one CRD watch, reads answer "none" without a GET, and a CRD installed later is watched at once', async () => {
    const kind = freshKind('a');
    const { client, calls } = countingClient();
    // The default recheck (30 s): only the CRD watch can notice the CRD within the test's seconds.
    const { seen, controller: c } = await startReader('optional-crd-watch', kind, client);
    await env.admin.create(GreetingKind, greeting('g', 'gadget-1'));
    await eventually(() => expect(seen).toEqual(['none']));
    await sleep(3_000);
    // Idle: no presence poll and no GET of the kind; one watch of its CRD by name (a watch-list:
    // its initial state, then its changes).
    expect(calls.filter((x) => x.endsWith(' gadgets'))).toEqual([]);
    expect(calls.filter((x) => x.endsWith(' customresourcedefinitions'))).toEqual([
      'watch customresourcedefinitions',
    ]);

    await installCrds(env.admin, [crdOf(kind) as KubeObject]);
    await eventually(() => expect(c.optionalKinds[0]?.watching).toBe(true), { timeoutMs: 5_000 });
    await env.admin.create(kind, gadget(kind, 'gadget-1'));
    await eventually(() => expect(seen.at(-1)).toBe('gadget-1'), { timeoutMs: 5_000 });
    // The pass read the informer: still no GET of the kind; its one watch-list is the informer's.
    expect(calls.filter((x) => x.startsWith('get '))).toEqual([]);
    // (A new CRD's watch may be refused while its storage initializes: the informer then lists
    // once and watches again.)
    const gadgetCalls = new Set(calls.filter((x) => x.endsWith(' gadgets')));
    expect(gadgetCalls).toContain('watch gadgets');
    expect([...gadgetCalls].filter((x) => x !== 'watch gadgets' && x !== 'list gadgets')).toEqual([]);
  });

  it('is watched once for the controllers that declare it: one CRD watch, one informer, every controller woken, until the last one stops', async () => {
    const kind = freshKind('s');
    const { client, calls } = countingClient();
    const seen: Record<string, string[]> = { a: [], b: [] };
    const controllers: Controller<Greeting>[] = [];
    manager = await startTestManager(
      { name: 'optional-shared', namespaces: [env.ns.name], client, kubeConfig: kc },
      (m) => {
        for (const c of ['a', 'b'])
          controllers.push(
            m
              .controller<Greeting>({ for: GreetingKind, name: `greeting-${c}` })
              .referencedBy(kind, (g) => [g.spec.message], { optional: true })
              .reconcile(async (g, ctx) => {
                const obj = await readExternal(ctx, kind, { namespace: env.ns.name, name: g.spec.message });
                seen[c]?.push(obj?.metadata.name ?? 'none');
              }),
          );
      },
    );
    const [a, b] = controllers as [Controller<Greeting>, Controller<Greeting>];
    await env.admin.create(GreetingKind, greeting('g', 'gadget-s'));
    await eventually(() => expect(seen).toEqual({ a: ['none'], b: ['none'] }));
    expect(calls.filter((x) => x.endsWith(' customresourcedefinitions'))).toEqual([
      'watch customresourcedefinitions',
    ]);

    await installCrds(env.admin, [crdOf(kind) as KubeObject]);
    await eventually(() => expect([a, b].map((c) => c.optionalKinds[0]?.watching)).toEqual([true, true]), {
      timeoutMs: 5_000,
    });
    await env.admin.create(kind, gadget(kind, 'gadget-s'));
    await eventually(() => expect([seen['a']?.at(-1), seen['b']?.at(-1)]).toEqual(['gadget-s', 'gadget-s']), {
      timeoutMs: 5_000,
    });
    // One informer of the kind (a watch-list; a list and a watch again if the new CRD's storage
    // answered 429 first), and still the one CRD watch.
    expect(calls.filter((x) => x === 'watch gadgets').length).toBeLessThanOrEqual(2);
    expect(calls.filter((x) => x === 'list gadgets').length).toBeLessThanOrEqual(1);
    expect(calls.filter((x) => x.endsWith(' customresourcedefinitions'))).toEqual([
      'watch customresourcedefinitions',
    ]);

    // One controller stops: the other still hears the kind.
    await a.stop(0);
    const passesOfB = seen['b']?.length ?? 0;
    await env.admin.patch(
      kind,
      { namespace: env.ns.name, name: 'gadget-s' },
      { status: { ok: true } },
      'merge',
      {
        subresource: 'status',
      },
    );
    await eventually(() => expect(seen['b']?.length).toBeGreaterThan(passesOfB), { timeoutMs: 5_000 });
    expect(b.optionalKinds[0]?.watching).toBe(true);
  });

  it('starts the workers once the served kind is listed: the first pass reads the existing object without a GET', async () => {
    const kind = freshKind('b');
    await installCrds(env.admin, [crdOf(kind) as KubeObject]);
    await env.admin.create(kind, gadget(kind, 'gadget-2'));
    await env.admin.create(GreetingKind, greeting('g', 'gadget-2'));
    const { client, calls } = countingClient();
    const { seen } = await startReader('optional-first-decision', kind, client);
    await eventually(() => expect(seen[0]).toBe('gadget-2'));
    expect(calls.filter((x) => x.startsWith('get '))).toEqual([]);
  });

  it('without RBAC on CRDs (an older chart) polls the kind as before, reads from the API server, and says so in a Warning Event', async () => {
    const kind = freshKind('c');
    const sa = 'old-chart-operator';
    await env.admin.create(Kinds.Role, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: sa, namespace: env.ns.name },
      rules: [
        { apiGroups: [GreetingKind.group], resources: ['greetings'], verbs: ['get', 'list', 'watch'] },
        { apiGroups: [kind.group], resources: [kind.plural], verbs: ['get', 'list', 'watch'] },
        { apiGroups: ['', 'events.k8s.io'], resources: ['events'], verbs: ['create', 'patch'] },
      ],
    } as KubeObject);
    await env.admin.create(Kinds.RoleBinding, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: sa, namespace: env.ns.name },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: sa },
      subjects: [{ kind: 'ServiceAccount', name: sa, namespace: env.ns.name }],
    } as KubeObject);
    const { client, calls } = countingClient({ impersonate: serviceAccountUser(env.ns.name, sa) });
    const { seen, controller: c } = await startReader('optional-old-rbac', kind, client, {
      optionalKindRecheckMs: 500,
    });
    await env.admin.create(GreetingKind, greeting('g', 'gadget-3'));
    // Every pass reads "none"; there may be two: the first answer about presence wakes every
    // primary, and under load it can come after the Greeting's first pass.
    await eventually(() => expect(seen[0]).toBe('none'));
    expect(new Set(seen)).toEqual(new Set(['none']));
    // Today's behaviour: a presence list of the kind, and the read is a GET (a 404 without the CRD).
    expect(calls).toContain('list gadgets');
    expect(calls).toContain('get gadgets');
    await eventually(async () => {
      const events = await env.admin.list(Kinds.Event, { namespace: env.ns.name });
      const warning = events.items.find(
        (e) => (e as KubeObject & { reason?: string }).reason === 'OptionalKindPolled',
      );
      expect((warning as (KubeObject & { message?: string }) | undefined)?.message).toContain(
        `CustomResourceDefinition ${kind.plural}.${kind.group}`,
      );
    });
    // …and the CRD installed later is still picked up, by the poll.
    await installCrds(env.admin, [crdOf(kind) as KubeObject]);
    await eventually(() => expect(c.optionalKinds[0]?.watching).toBe(true), { timeoutMs: 10_000 });
  });
});

describe('optional kinds with a selector, read from ctx.cache, whose CRD comes and goes', () => {
  it('caches only the selected objects, answers ctx.cache from the watch, and wakes every primary when the CRD is installed or removed', async () => {
    const kind = freshKind('p');
    const { client, calls } = countingClient();
    const seen: string[] = [];
    manager = await startTestManager(
      { name: 'optional-presence', namespaces: [env.ns.name], client, kubeConfig: kc },
      (m) => {
        m.controller<Greeting>({ for: GreetingKind, name: 'greeting' })
          // No object of the kind wakes a Greeting: only its CRD coming or going does.
          .watches(kind, () => undefined, { optional: true, labelSelector: 'mine=yes' })
          .reconcile(async (_g, ctx) => {
            const served = optionalKindServed(ctx.cache, kind);
            const listed = ctx.cache.list(kind, { namespace: env.ns.name }).map((o) => o.metadata.name);
            const got = ctx.cache.get(kind, { namespace: env.ns.name, name: 'mine' });
            seen.push(`${served} [${listed.sort().join(',')}] ${got?.metadata.name ?? '-'}`);
          });
      },
    );
    await env.admin.create(GreetingKind, greeting('g', 'first'));
    await eventually(() => expect(seen).toEqual(['false [] -']));

    await installCrds(env.admin, [crdOf(kind) as KubeObject]);
    await eventually(() => expect(seen.at(-1)).toBe('true [] -'), { timeoutMs: 10_000 });
    await env.admin.create(kind, {
      ...gadget(kind, 'mine'),
      metadata: { ...gadget(kind, 'mine').metadata, labels: { mine: 'yes' } },
    });
    await env.admin.create(kind, gadget(kind, 'other'));
    // The informer of the kind watches `mine=yes` only: the unlabelled object never reaches it.
    await sleep(1_000);
    const passes = seen.length;
    await env.admin.patch(
      GreetingKind,
      { namespace: env.ns.name, name: 'g' },
      { spec: { message: 'again' } },
      'merge',
    );
    await eventually(() => expect(seen.slice(passes)).toEqual(['true [mine] mine']));
    // Read from the watch: no GET of the kind, however many passes.
    expect(calls.filter((x) => x === 'get gadgets')).toEqual([]);

    await env.admin.delete(Kinds.CustomResourceDefinition, { name: `${kind.plural}.${kind.group}` });
    // The informer's failing relist wakes the presence check at once, not after the 30 s recheck.
    await eventually(() => expect(seen.at(-1)).toBe('false [] -'), { timeoutMs: 15_000 });
  });
});
