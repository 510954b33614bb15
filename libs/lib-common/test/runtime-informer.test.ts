import { type ControlPlane, startControlPlane, stopCluster } from '@stackops/kube-env';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKubeClient, type RestKubeClient } from '../src/client/client.js';
import { Kinds } from '../src/client/kinds.js';
import type { KubeClient, KubeObject } from '../src/client/types.js';
import { Informer, type InformerEvent } from '../src/runtime/informer.js';
import { createTestNamespace } from '../src/testing/namespace.js';
import { eventually } from '../src/testing/wait.js';
import { advanceAndCompactEtcd, killApiServer, startApiServer } from './support/control-plane.js';

type ConfigMap = KubeObject & { data?: Record<string, string> };

// A private one-node cluster: killing the shared API server would break the other test files.
const cluster = `lc-informer-${process.pid}`;
let cp: ControlPlane;
let client: RestKubeClient;
let ns: string;

beforeAll(async () => {
  cp = await startControlPlane({ name: cluster, nodes: 1, fresh: true, ephemeral: true });
  client = createKubeClient(cp.kubeConfig, { fieldManager: 'informer-test', requestTimeoutMs: 5000 });
  ns = (await createTestNamespace(client, 'informer')).name;
}, 180_000);
afterAll(async () => {
  client?.close();
  await stopCluster(cluster, { purge: true });
});

const cm = (name: string, v: string): ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: ns },
  data: { v },
});

/** Retries a write until the restarted API server accepts it. */
async function whenServing<R>(write: () => Promise<R>): Promise<R> {
  return eventually(write, { timeoutMs: 60_000, intervalMs: 200 });
}

const snapshot = (inf: Informer<ConfigMap>): Record<string, string | undefined> =>
  Object.fromEntries(
    inf
      .list({ namespace: ns })
      .map((o) => [o.metadata.name ?? '', o.data?.['v']])
      .sort(),
  );

async function serverSnapshot(): Promise<Record<string, string | undefined>> {
  const list = await client.list<ConfigMap>(Kinds.ConfigMap, { namespace: ns });
  return Object.fromEntries(list.items.map((o) => [o.metadata.name ?? '', o.data?.['v']]).sort());
}

/** The client, counting the lists sent through it (an informer that streams sends none). */
function countingLists(c: KubeClient): { client: KubeClient; lists: () => number } {
  let lists = 0;
  const counted: KubeClient = Object.create(c);
  counted.list = (...args: Parameters<KubeClient['list']>) => {
    lists += 1;
    return c.list(...args);
  };
  return { client: counted, lists: () => lists };
}

describe('informer resilience', () => {
  it('reads the current objects with one watch-list request and goes on watching', async () => {
    const own = (await createTestNamespace(client, 'informer-wl')).name;
    for (const n of ['x', 'y'])
      await client.create(Kinds.ConfigMap, { ...cm(n, '1'), metadata: { name: n, namespace: own } });
    const { client: counted, lists } = countingLists(client);
    const inf = new Informer<ConfigMap>(counted, Kinds.ConfigMap, { namespaces: [own] });
    inf.start();
    try {
      await inf.waitForSync();
      expect(
        inf
          .list({ namespace: own })
          .map((o) => o.metadata.name)
          // the root-CA ConfigMap the control plane adds may or may not be there yet
          .filter((n) => n !== 'kube-root-ca.crt')
          .sort(),
      ).toEqual(['x', 'y']);
      await client.patch(Kinds.ConfigMap, { namespace: own, name: 'x' }, { data: { v: '2' } }, 'merge');
      await eventually(() => expect(inf.get(`${own}/x`)?.data?.['v']).toBe('2'));
      expect(lists()).toBe(0);
    } finally {
      await inf.stop();
    }
  });

  it('survives API server crashes and a 410 after etcd compaction, and misses no change', async () => {
    const events: string[] = [];
    const { client: counted, lists } = countingLists(client);
    const inf = new Informer<ConfigMap>(counted, Kinds.ConfigMap, {
      namespaces: [ns],
      backoff: { initialMs: 200, maxMs: 2000, jitter: 0.2 },
    });
    inf.on((e: InformerEvent<ConfigMap>) =>
      events.push(`${e.type}:${e.obj.metadata.name}:${e.obj.data?.['v']}`),
    );
    inf.start();
    try {
      for (const n of ['a', 'b', 'c']) await client.create(Kinds.ConfigMap, cm(n, '1'));
      await eventually(() => expect(snapshot(inf)).toEqual({ a: '1', b: '1', c: '1' }));

      // 1. a crash and restart of the API server, with changes right after it is back
      await killApiServer(cluster);
      startApiServer(cluster);
      await whenServing(() =>
        client.patch(Kinds.ConfigMap, { namespace: ns, name: 'a' }, { data: { v: '2' } }, 'merge'),
      );
      await client.delete(Kinds.ConfigMap, { namespace: ns, name: 'b' });
      await client.create(Kinds.ConfigMap, cm('d', '1'));
      await eventually(async () => expect(snapshot(inf)).toEqual(await serverSnapshot()), {
        timeoutMs: 60_000,
      });
      expect(snapshot(inf)).toEqual({ a: '2', c: '1', d: '1' });
      expect(inf.restarts.error).toBeGreaterThan(0);

      // 2. the informer's resourceVersion compacted away while the server is down: 410, relist
      const goneBefore = inf.restarts.gone;
      await killApiServer(cluster);
      await advanceAndCompactEtcd(cluster);
      startApiServer(cluster);
      await whenServing(() => client.delete(Kinds.ConfigMap, { namespace: ns, name: 'c' }));
      await client.patch(Kinds.ConfigMap, { namespace: ns, name: 'd' }, { data: { v: '2' } }, 'merge');
      await client.create(Kinds.ConfigMap, cm('e', '1'));
      await eventually(async () => expect(snapshot(inf)).toEqual(await serverSnapshot()), {
        timeoutMs: 60_000,
      });
      expect(snapshot(inf)).toEqual({ a: '2', d: '2', e: '1' });
      expect(inf.restarts.gone).toBeGreaterThan(goneBefore);

      // every change was delivered to listeners, deletions included
      for (const e of ['update:a:2', 'delete:b:1', 'add:d:1', 'delete:c:1', 'update:d:2', 'add:e:1']) {
        expect(events).toContain(e);
      }
      // every re-read after the 410 was a watch-list stream, not a list
      expect(lists()).toBe(0);
    } finally {
      await inf.stop();
    }
  });
});
