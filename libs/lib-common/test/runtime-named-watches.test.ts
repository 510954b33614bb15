import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createKubeClient } from '../src/client/client.js';
import { Kinds } from '../src/client/kinds.js';
import type { KubeObject, ListOptions, WatchOptions } from '../src/client/types.js';
import type { Controller } from '../src/runtime/controller.js';
import type { Manager } from '../src/runtime/manager.js';
import { loadTestKubeConfig } from '../src/testing/kubeconfig.js';
import { startTestManager } from '../src/testing/manager.js';
import { createTestNamespace, useTestNamespace } from '../src/testing/namespace.js';
import { eventually } from '../src/testing/wait.js';
import { type Greeting, GreetingKind, greeting } from './support/greeting.js';

const crds = fileURLToPath(new URL('./fixtures/crds', import.meta.url));
const kc = loadTestKubeConfig();
const env = useTestNamespace({ beforeAll, afterAll, beforeEach, afterEach }, { prefix: 'named-watch', crds });
let manager: Manager | undefined;

afterEach(async () => {
  await manager?.stop();
  manager = undefined;
});

const secret = (name: string, value: string) =>
  env.admin.apply(Kinds.Secret, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace: env.ns.name },
    stringData: { value },
  } as KubeObject);

describe('referencedBy(kind, names, { byName: true })', () => {
  it('watches only the Secrets a primary names, wakes it on their changes, and reads them from ctx.cache', async () => {
    // Every list and watch of Secrets the manager sends, with its selectors.
    const secretRequests: string[] = [];
    const client = createKubeClient(kc, { fieldManager: 'named-watch-test' });
    const list = client.list.bind(client);
    const watch = client.watch.bind(client);
    client.list = ((kind, opts: ListOptions = {}) => {
      if (kind.kind === 'Secret')
        secretRequests.push(`list ${opts.namespace} ${opts.fieldSelector ?? 'ALL'}`);
      return list(kind, opts);
    }) as typeof client.list;
    client.watch = ((kind, opts: WatchOptions, onEvent) => {
      if (kind.kind === 'Secret')
        secretRequests.push(`watch ${opts.namespace} ${opts.fieldSelector ?? 'ALL'}`);
      return watch(kind, opts, onEvent);
    }) as typeof client.watch;

    await secret('input-a', 'one');
    await secret('unrelated', 'x');
    const seen: { secret: string | undefined; value: string | undefined }[] = [];
    let controller: Controller<Greeting> | undefined;
    manager = await startTestManager({ name: 'named-watch', namespaces: [env.ns.name], client }, (m) => {
      controller = m
        .controller<Greeting>({ for: GreetingKind, name: 'greeting' })
        .referencedBy(Kinds.Secret, (g) => [g.spec.secretName], { byName: true })
        .reconcile(async (g, ctx) => {
          const name = g.spec.secretName ?? '';
          const s = ctx.cache.get<KubeObject & { data?: Record<string, string> }>(Kinds.Secret, {
            namespace: env.ns.name,
            name,
          });
          const raw = s?.data?.['value'];
          seen.push({
            secret: name,
            value: raw === undefined ? undefined : Buffer.from(raw, 'base64').toString(),
          });
        });
    });
    const c = controller as Controller<Greeting>;
    await env.admin.create(
      GreetingKind,
      greeting(env.ns.name, 'g', { message: 'hi', secretName: 'input-a' }),
    );
    await eventually(() => expect(seen.at(-1)).toEqual({ secret: 'input-a', value: 'one' }));
    expect(c.namedWatchCount).toBe(1);

    // A change to the named Secret wakes the Greeting; a change to another one does not.
    await secret('input-a', 'two');
    await eventually(() => expect(seen.at(-1)).toEqual({ secret: 'input-a', value: 'two' }));
    const before = seen.length;
    await secret('unrelated', 'y');
    await new Promise((r) => setTimeout(r, 500));
    expect(seen.length).toBe(before);

    // Naming a Secret that does not exist yet: read as absent, then woken when it is created.
    await env.admin.patch(
      GreetingKind,
      { namespace: env.ns.name, name: 'g' },
      { spec: { secretName: 'input-b' } },
      'merge',
    );
    await eventually(() => expect(seen.at(-1)).toEqual({ secret: 'input-b', value: undefined }));
    expect(c.namedWatchCount).toBe(1);
    await secret('input-b', 'three');
    await eventually(() => expect(seen.at(-1)).toEqual({ secret: 'input-b', value: 'three' }));

    // Deleting the Greeting stops the watch.
    await env.admin.delete(GreetingKind, { namespace: env.ns.name, name: 'g' });
    await eventually(() => expect(c.namedWatchCount).toBe(0));

    // Never a list or watch of every Secret: only by name, in the Greeting's namespace.
    expect(secretRequests.length).toBeGreaterThan(0);
    for (const r of secretRequests)
      expect(r).toMatch(new RegExp(`^(list|watch) ${env.ns.name} metadata\\.name=input-[ab]$`));
  });
});

describe('watchesNamed(kind, refs)', () => {
  it('follows a ref in another namespace (a host Secret next to the host, say)', async () => {
    const other = await createTestNamespace(env.admin, 'named-watch-other');
    try {
      await env.admin.apply(Kinds.Secret, {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'bmc', namespace: other.name },
        stringData: { value: 'one' },
      } as KubeObject);
      const seen: (string | undefined)[] = [];
      manager = await startTestManager({ name: 'named-watch-refs', namespaces: [env.ns.name] }, (m) => {
        m.controller<Greeting>({ for: GreetingKind, name: 'greeting' })
          .watchesNamed(Kinds.Secret, () => [{ namespace: other.name, name: 'bmc' }])
          .reconcile(async (_g, ctx) => {
            const s = ctx.cache.get<KubeObject & { data?: Record<string, string> }>(Kinds.Secret, {
              namespace: other.name,
              name: 'bmc',
            });
            const raw = s?.data?.['value'];
            seen.push(raw === undefined ? undefined : Buffer.from(raw, 'base64').toString());
          });
      });
      await env.admin.create(GreetingKind, greeting(env.ns.name, 'g', { message: 'hi' }));
      await eventually(() => expect(seen.at(-1)).toBe('one'));
      await env.admin.patch(
        Kinds.Secret,
        { namespace: other.name, name: 'bmc' },
        { stringData: { value: 'two' } },
        'merge',
      );
      await eventually(() => expect(seen.at(-1)).toBe('two'));
    } finally {
      await manager?.stop();
      manager = undefined;
      await other.delete();
    }
  });
});

describe('named watches shared by the controllers of a manager', () => {
  it('one list+watch for a Secret two controllers name, both woken, stopped with the last reference', async () => {
    // Every list and watch of Secrets the manager sends, and how many of the watches are open.
    const requests: string[] = [];
    const open = new Map<string, number>();
    const client = createKubeClient(kc, { fieldManager: 'named-watch-shared-test' });
    const list = client.list.bind(client);
    const watch = client.watch.bind(client);
    client.list = ((kind, opts: ListOptions = {}) => {
      if (kind.kind === 'Secret') requests.push(`list ${opts.fieldSelector}`);
      return list(kind, opts);
    }) as typeof client.list;
    client.watch = (async (kind, opts: WatchOptions, onEvent) => {
      if (kind.kind !== 'Secret') return watch(kind, opts, onEvent);
      const selector = opts.fieldSelector ?? 'ALL';
      requests.push(`watch ${selector}`);
      open.set(selector, (open.get(selector) ?? 0) + 1);
      try {
        return await watch(kind, opts, onEvent);
      } finally {
        open.set(selector, (open.get(selector) ?? 0) - 1);
      }
    }) as typeof client.watch;
    const count = (r: string) => requests.filter((x) => x === r).length;

    await secret('shared', 'one');
    // `first` names spec.secretName, `second` the Secret an annotation names.
    const seen: Record<string, (string | undefined)[]> = { first: [], second: [] };
    const named = {
      first: (g: Greeting) => [g.spec.secretName],
      second: (g: Greeting) => [g.metadata.annotations?.['second-secret']],
    };
    manager = await startTestManager(
      { name: 'named-watch-shared', namespaces: [env.ns.name], client },
      (m) => {
        for (const name of ['first', 'second'] as const)
          m.controller<Greeting>({ for: GreetingKind, name })
            .referencedBy(Kinds.Secret, named[name], { byName: true })
            .reconcile(async (g, ctx) => {
              const secretName = named[name](g)[0];
              if (!secretName) return;
              const s = ctx.cache.get<KubeObject & { data?: Record<string, string> }>(Kinds.Secret, {
                namespace: env.ns.name,
                name: secretName,
              });
              const raw = s?.data?.['value'];
              seen[name]?.push(raw === undefined ? undefined : Buffer.from(raw, 'base64').toString());
            });
      },
    );
    await env.admin.create(
      GreetingKind,
      greeting(
        env.ns.name,
        'g',
        { message: 'hi', secretName: 'shared' },
        { annotations: { 'second-secret': 'shared' } },
      ),
    );
    // Each controller reads the Secret once the shared watch has read it (one watch-list request).
    await eventually(() => expect([seen['first']?.at(-1), seen['second']?.at(-1)]).toEqual(['one', 'one']));
    expect(count('list metadata.name=shared')).toBe(0);
    expect(count('watch metadata.name=shared')).toBe(1);

    // A change wakes both controllers.
    await secret('shared', 'two');
    await eventually(() => expect([seen['first']?.at(-1), seen['second']?.at(-1)]).toEqual(['two', 'two']));

    // `first` stops naming it: the watch stays for `second`, which is still woken.
    await env.admin.patch(
      GreetingKind,
      { namespace: env.ns.name, name: 'g' },
      { spec: { secretName: 'other' } },
      'merge',
    );
    await eventually(() => expect(seen['first']?.at(-1)).toBeUndefined());
    await secret('shared', 'three');
    await eventually(() => expect(seen['second']?.at(-1)).toBe('three'));
    expect(seen['first']).not.toContain('three');
    expect(open.get('metadata.name=shared')).toBe(1);

    // `second` stops naming it too: the watch ends, and was never opened twice.
    await env.admin.patch(
      GreetingKind,
      { namespace: env.ns.name, name: 'g' },
      { metadata: { annotations: { 'second-secret': null } } },
      'merge',
    );
    await eventually(() => expect(open.get('metadata.name=shared')).toBe(0));
    expect(count('list metadata.name=shared')).toBe(0);
    expect(count('watch metadata.name=shared')).toBe(1);
    expect(requests.filter((r) => r.endsWith('ALL'))).toEqual([]);
  });
});
