import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKubeClient, listAll, type RestKubeClient, serviceAccountUser } from '../src/client/client.js';
import { ApiError, isConflict, isForbidden, isInvalid, isNotFound } from '../src/client/errors.js';
import { Kinds } from '../src/client/kinds.js';
import type { KubeObject, WatchEvent } from '../src/client/types.js';
import { loadTestKubeConfig } from '../src/testing/kubeconfig.js';
import { createTestNamespace, type TestNamespace } from '../src/testing/namespace.js';
import { waitForDeletion } from '../src/testing/wait.js';

type ConfigMap = KubeObject & { data?: Record<string, string> };
type Managed = {
  metadata: { managedFields?: { manager: string; operation: string; subresource?: string }[] };
};

const kc = loadTestKubeConfig();
let client: RestKubeClient;
let ns: TestNamespace;

const cm = (name: string, data: Record<string, string>): ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: ns.name },
  data,
});

beforeAll(async () => {
  client = createKubeClient(kc, { fieldManager: 'stackops-client-test' });
  ns = await createTestNamespace(client, 'client-rest');
});
afterAll(async () => {
  await ns.delete();
  client.close();
});

describe('KubeClient against the API server', () => {
  it('server-side applies with its own field manager, and a repeated apply changes nothing', async () => {
    const first = await client.apply(Kinds.ConfigMap, cm('ssa', { a: '1' }), { force: true });
    const managers = (first as unknown as Managed).metadata.managedFields?.map((f) => [
      f.manager,
      f.operation,
    ]);
    expect(managers).toEqual([['stackops-client-test', 'Apply']]);
    const again = await client.apply(Kinds.ConfigMap, cm('ssa', { a: '1' }), { force: true });
    expect(again.metadata.resourceVersion).toBe(first.metadata.resourceVersion);
    // a field the manager stops applying is removed (SSA ownership), plain JSON in and out
    const changed = await client.apply<ConfigMap>(Kinds.ConfigMap, cm('ssa', { b: '2' }), { force: true });
    expect(changed.data).toEqual({ b: '2' });
  });

  it('reports an SSA conflict with another manager unless forced', async () => {
    const other = createKubeClient(kc, { fieldManager: 'someone-else' });
    try {
      await other.apply(Kinds.ConfigMap, cm('contested', { k: 'theirs' }));
      const err = await client
        .apply(Kinds.ConfigMap, cm('contested', { k: 'ours' }))
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ApiError);
      expect(isConflict(err)).toBe(true);
      const forced = await client.apply<ConfigMap>(Kinds.ConfigMap, cm('contested', { k: 'ours' }), {
        force: true,
      });
      expect(forced.data?.['k']).toBe('ours');
    } finally {
      other.close();
    }
  });

  it('gets undefined for a missing object and parses v1.Status errors', async () => {
    expect(await client.get(Kinds.ConfigMap, { namespace: ns.name, name: 'missing' })).toBeUndefined();
    const err = await client
      .patch(Kinds.ConfigMap, { namespace: ns.name, name: 'missing' }, { data: { a: 'b' } }, 'merge')
      .catch((e: unknown) => e);
    expect(isNotFound(err)).toBe(true);
    expect((err as ApiError).reason).toBe('NotFound');
    expect((err as ApiError).statusMessage).toBe('configmaps "missing" not found');
    const invalid = await client
      .create(Kinds.ConfigMap, { metadata: { name: 'Not_Valid', namespace: ns.name } })
      .catch((e: unknown) => e);
    expect(isInvalid(invalid)).toBe(true);
    expect((invalid as ApiError).details?.causes?.[0]?.field).toBe('metadata.name');
  });

  it('applies JSON Patch with test, merge patch, and strategic merge patch', async () => {
    await client.create(Kinds.ConfigMap, cm('patched', { a: '1' }));
    const ref = { namespace: ns.name, name: 'patched' };
    const withFinalizer = await client.patch(
      Kinds.ConfigMap,
      ref,
      [
        { op: 'test', path: '/metadata/finalizers', value: null },
        { op: 'add', path: '/metadata/finalizers', value: ['example.stackops.dev/f'] },
      ],
      'json',
    );
    expect(withFinalizer.metadata.finalizers).toEqual(['example.stackops.dev/f']);
    // the same guarded add fails now: the `test` no longer holds
    const failed = await client
      .patch(
        Kinds.ConfigMap,
        ref,
        [
          { op: 'test', path: '/metadata/finalizers', value: null },
          { op: 'add', path: '/metadata/finalizers', value: ['example.stackops.dev/f'] },
        ],
        'json',
      )
      .catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(ApiError);
    expect((failed as ApiError).code).toBe(422);
    const merged = await client.patch<ConfigMap>(
      Kinds.ConfigMap,
      ref,
      { metadata: { finalizers: null }, data: { a: null, b: '2' } },
      'merge',
    );
    expect(merged.data).toEqual({ b: '2' });
    expect(merged.metadata.finalizers).toBeUndefined();
    const strategic = await client.patch<ConfigMap>(Kinds.ConfigMap, ref, { data: { c: '3' } }, 'strategic');
    expect(strategic.data).toEqual({ b: '2', c: '3' });
  });

  it('writes the status subresource only through /status', async () => {
    const ns2 = ns.name;
    await client.create(Kinds.Namespace, { metadata: { name: `${ns2}-st` } });
    try {
      const patched = await client.patch<KubeObject & { status?: { conditions?: unknown[] } }>(
        Kinds.Namespace,
        { name: `${ns2}-st` },
        { status: { conditions: [{ type: 'NamespaceDeletionDiscoveryFailure', status: 'False' }] } },
        'merge',
        { subresource: 'status' },
      );
      expect(patched.status?.conditions).toHaveLength(1);
    } finally {
      await client.delete(Kinds.Namespace, { name: `${ns2}-st` });
    }
  });

  it('replaces with optimistic concurrency', async () => {
    const created = await client.create<ConfigMap>(Kinds.ConfigMap, cm('replaced', { v: '1' }));
    const updated = await client.replace<ConfigMap>(Kinds.ConfigMap, { ...created, data: { v: '2' } });
    expect(updated.data).toEqual({ v: '2' });
    const stale = await client
      .replace(Kinds.ConfigMap, { ...created, data: { v: '3' } })
      .catch((e: unknown) => e);
    expect(isConflict(stale)).toBe(true);
  });

  it('lists with label selectors and pages, filling apiVersion/kind of items', async () => {
    for (let i = 0; i < 5; i++) {
      await client.create(Kinds.ConfigMap, {
        ...cm(`paged-${i}`, {}),
        metadata: { name: `paged-${i}`, namespace: ns.name, labels: { page: 'yes', odd: String(i % 2) } },
      });
    }
    const page = await client.list(Kinds.ConfigMap, {
      namespace: ns.name,
      labelSelector: 'page=yes',
      limit: 2,
    });
    expect(page.items).toHaveLength(2);
    expect(page.metadata.continue).toBeTruthy();
    expect(page.items[0]).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap' });
    const all = await listAll(client, Kinds.ConfigMap, {
      namespace: ns.name,
      labelSelector: 'page=yes',
      pageSize: 2,
    });
    expect(all.items.map((o) => o.metadata.name).sort()).toEqual([0, 1, 2, 3, 4].map((i) => `paged-${i}`));
    const odd = await listAll(client, Kinds.ConfigMap, {
      namespace: ns.name,
      labelSelector: 'page=yes,odd in (1)',
    });
    expect(odd.items).toHaveLength(2);
    expect(Number(all.resourceVersion)).toBeGreaterThan(0);
  });

  it('deletes with a propagation policy, and resolves false when already gone', async () => {
    await client.create(Kinds.ConfigMap, cm('doomed', {}));
    const ref = { namespace: ns.name, name: 'doomed' };
    expect(await client.delete(Kinds.ConfigMap, ref, { propagationPolicy: 'Foreground' })).toBe(true);
    // Foreground: the garbage collector removes its finalizer, then the object goes
    await waitForDeletion(client, Kinds.ConfigMap, ref);
    expect(await client.delete(Kinds.ConfigMap, ref)).toBe(false);
  });

  it('streams watch events from a resourceVersion until aborted', async () => {
    const start = await client.create<ConfigMap>(Kinds.ConfigMap, cm('watched', { n: '0' }));
    const events: WatchEvent<ConfigMap>[] = [];
    const ac = new AbortController();
    let opened = false;
    const done = client.watch<ConfigMap>(
      Kinds.ConfigMap,
      {
        namespace: ns.name,
        fieldSelector: 'metadata.name=watched',
        resourceVersion: start.metadata.resourceVersion,
        allowWatchBookmarks: true,
        signal: ac.signal,
        onOpen: () => {
          opened = true;
        },
      },
      (e) => events.push(e),
    );
    for (let i = 1; i <= 3; i++) {
      await client.patch(
        Kinds.ConfigMap,
        { namespace: ns.name, name: 'watched' },
        { data: { n: String(i) } },
        'merge',
      );
    }
    await client.delete(Kinds.ConfigMap, { namespace: ns.name, name: 'watched' });
    const deadline = Date.now() + 10_000;
    while (!events.some((e) => e.type === 'DELETED') && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    ac.abort();
    await done;
    expect(opened).toBe(true);
    const changes = events.filter((e) => e.type !== 'BOOKMARK');
    expect(changes.map((e) => [e.type, e.object.data?.['n']])).toEqual([
      ['MODIFIED', '1'],
      ['MODIFIED', '2'],
      ['MODIFIED', '3'],
      ['DELETED', '3'],
    ]);
  });

  it('watch-list: the existing objects as ADDED, then a bookmark marking the end of the initial events', async () => {
    await client.create<ConfigMap>(Kinds.ConfigMap, cm('listed', { n: '0' }));
    const events: WatchEvent<ConfigMap>[] = [];
    const ac = new AbortController();
    const isEnd = (e: WatchEvent<ConfigMap>) =>
      e.type === 'BOOKMARK' && e.object.metadata?.annotations?.['k8s.io/initial-events-end'] === 'true';
    const done = client.watch<ConfigMap>(
      Kinds.ConfigMap,
      {
        namespace: ns.name,
        fieldSelector: 'metadata.name=listed',
        sendInitialEvents: true,
        resourceVersionMatch: 'NotOlderThan',
        allowWatchBookmarks: true,
        signal: ac.signal,
      },
      (e) => events.push(e),
    );
    const deadline = Date.now() + 10_000;
    while (!events.some(isEnd) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    ac.abort();
    await done;
    const end = events.findIndex(isEnd);
    expect(end).toBeGreaterThan(0);
    expect(events.slice(0, end).map((e) => [e.type, e.object.metadata?.name])).toEqual([['ADDED', 'listed']]);
  });

  it('does not leak sockets across many watch restarts', async () => {
    const sockets = (): number =>
      process.getActiveResourcesInfo().filter((r) => r === 'TCPSocketWrap').length;
    const watcher = createKubeClient(kc, { fieldManager: 'stackops-leak-test' });
    try {
      await watcher.list(Kinds.ConfigMap, { namespace: ns.name });
      const before = sockets();
      for (let i = 0; i < 30; i++) {
        const ac = new AbortController();
        const done = watcher.watch(
          Kinds.ConfigMap,
          { namespace: ns.name, signal: ac.signal, onOpen: () => ac.abort() },
          () => {},
        );
        await done;
      }
      await new Promise((r) => setTimeout(r, 200));
      expect(sockets() - before).toBeLessThanOrEqual(1);
    } finally {
      watcher.close();
    }
  });

  it('holds many watches and requests on one connection to the API server (HTTP/2 streams)', async () => {
    const sockets = (): number =>
      process.getActiveResourcesInfo().filter((r) => r === 'TCPSocketWrap').length;
    // The previous test's client may still be closing its connection.
    await new Promise((r) => setTimeout(r, 200));
    const before = sockets();
    const watcher = createKubeClient(kc, { fieldManager: 'stackops-h2-test' });
    const stop = new AbortController();
    try {
      const opened = Array.from(
        { length: 20 },
        () =>
          new Promise<void>((onOpen) => {
            void watcher.watch(
              Kinds.ConfigMap,
              { namespace: ns.name, signal: stop.signal, onOpen },
              () => {},
            );
          }),
      );
      await Promise.all(opened);
      await Promise.all([
        watcher.list(Kinds.ConfigMap, { namespace: ns.name }),
        watcher.get(Kinds.Namespace, { name: ns.name }),
      ]);
      // Over HTTP/1.1 each open watch would hold a TLS connection of its own (20 here).
      expect(sockets() - before).toBeLessThanOrEqual(1);
    } finally {
      stop.abort();
      watcher.close();
    }
  });

  it('counts requests by verb and status code', async () => {
    const counting = createKubeClient(kc, { fieldManager: 'stackops-count-test' });
    try {
      await counting.get(Kinds.ConfigMap, { namespace: ns.name, name: 'missing' });
      await counting.apply(Kinds.ConfigMap, cm('counted', { a: '1' }), { force: true });
      await counting.list(Kinds.ConfigMap, { namespace: ns.name });
      await counting.delete(Kinds.ConfigMap, { namespace: ns.name, name: 'counted' });
      expect(counting.requests.snapshot()).toEqual({
        get: { '404': 1 },
        apply: { '201': 1 },
        list: { '200': 1 },
        delete: { '200': 1 },
      });
      expect(counting.requests.writes()).toBe(2);
    } finally {
      counting.close();
    }
  });

  it('impersonates a ServiceAccount, so its RBAC decides, not the admin credentials', async () => {
    const saName = 'operator';
    await client.create(Kinds.ServiceAccount, { metadata: { name: saName, namespace: ns.name } });
    const asSa = createKubeClient(kc, {
      fieldManager: 'stackops-sa-test',
      impersonate: serviceAccountUser(ns.name, saName),
    });
    try {
      const denied = await asSa.list(Kinds.ConfigMap, { namespace: ns.name }).catch((e: unknown) => e);
      expect(isForbidden(denied)).toBe(true);
      expect((denied as ApiError).statusMessage).toContain(`system:serviceaccount:${ns.name}:${saName}`);
      await client.create(Kinds.Role, {
        metadata: { name: 'read-cm', namespace: ns.name },
        rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['list'] }],
      });
      await client.create(Kinds.RoleBinding, {
        metadata: { name: 'read-cm', namespace: ns.name },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'read-cm' },
        subjects: [{ kind: 'ServiceAccount', name: saName, namespace: ns.name }],
      });
      const deadline = Date.now() + 10_000;
      let allowed = false;
      while (!allowed && Date.now() < deadline) {
        allowed = await asSa.list(Kinds.ConfigMap, { namespace: ns.name }).then(
          () => true,
          () => false,
        );
      }
      expect(allowed).toBe(true);
      const write = await asSa.create(Kinds.ConfigMap, cm('by-sa', {})).catch((e: unknown) => e);
      expect(isForbidden(write)).toBe(true);
    } finally {
      asSa.close();
    }
  });
});
