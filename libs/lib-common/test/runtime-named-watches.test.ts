import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createKubeClient, type RestKubeClient } from '../src/client/client.js';
import { Kinds } from '../src/client/kinds.js';
import type { KubeObject, ListOptions, WatchOptions } from '../src/client/types.js';
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
let admin: RestKubeClient;
let ns: TestNamespace;
let manager: Manager | undefined;

beforeAll(async () => {
  admin = createKubeClient(kc, { fieldManager: 'test-admin' });
  await installCrds(admin, crds);
});
afterAll(() => admin.close());
beforeEach(async () => {
  ns = await createTestNamespace(admin, 'named-watch');
});
afterEach(async () => {
  await manager?.stop();
  manager = undefined;
  await ns.delete();
});

const secret = (name: string, value: string) =>
  admin.apply(Kinds.Secret, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace: ns.name },
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
    manager = await startTestManager({ name: 'named-watch', namespaces: [ns.name], client }, (m) => {
      controller = m
        .controller<Greeting>({ for: GreetingKind, name: 'greeting' })
        .referencedBy(Kinds.Secret, (g) => [g.spec.secretName], { byName: true })
        .reconcile(async (g, ctx) => {
          const name = g.spec.secretName ?? '';
          const s = ctx.cache.get<KubeObject & { data?: Record<string, string> }>(Kinds.Secret, {
            namespace: ns.name,
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
    await admin.create(GreetingKind, {
      apiVersion: 'example.stackops.dev/v1alpha1',
      kind: 'Greeting',
      metadata: { name: 'g', namespace: ns.name },
      spec: { message: 'hi', secretName: 'input-a' },
    });
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
    await admin.patch(
      GreetingKind,
      { namespace: ns.name, name: 'g' },
      { spec: { secretName: 'input-b' } },
      'merge',
    );
    await eventually(() => expect(seen.at(-1)).toEqual({ secret: 'input-b', value: undefined }));
    expect(c.namedWatchCount).toBe(1);
    await secret('input-b', 'three');
    await eventually(() => expect(seen.at(-1)).toEqual({ secret: 'input-b', value: 'three' }));

    // Deleting the Greeting stops the watch.
    await admin.delete(GreetingKind, { namespace: ns.name, name: 'g' });
    await eventually(() => expect(c.namedWatchCount).toBe(0));

    // Never a list or watch of every Secret: only by name, in the Greeting's namespace.
    expect(secretRequests.length).toBeGreaterThan(0);
    for (const r of secretRequests)
      expect(r).toMatch(new RegExp(`^(list|watch) ${ns.name} metadata\\.name=input-[ab]$`));
  });
});

describe('watchesNamed(kind, refs)', () => {
  it('follows a ref in another namespace (a host Secret next to the host, say)', async () => {
    const other = await createTestNamespace(admin, 'named-watch-other');
    try {
      await admin.apply(Kinds.Secret, {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'bmc', namespace: other.name },
        stringData: { value: 'one' },
      } as KubeObject);
      const seen: (string | undefined)[] = [];
      manager = await startTestManager({ name: 'named-watch-refs', namespaces: [ns.name] }, (m) => {
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
      await admin.create(GreetingKind, {
        apiVersion: 'example.stackops.dev/v1alpha1',
        kind: 'Greeting',
        metadata: { name: 'g', namespace: ns.name },
        spec: { message: 'hi' },
      });
      await eventually(() => expect(seen.at(-1)).toBe('one'));
      await admin.patch(
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
