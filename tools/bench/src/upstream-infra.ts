import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type KindRef, Kinds, type KubeObject, type RestKubeClient } from '@stackops/lib-common/client';
import { readCrds } from '@stackops/lib-common/testing';
import type { Workload } from './workloads.js';

/**
 * Upstream's Go keystone-operator on the bench's keystone workload (`--play-upstream-infra`): it
 * waits for mariadb-operator and infra-operator, which the bench plays as tools/upstream-switch
 * plays them, without their processes. Per namespace a Galera `openstack` (bootstrapped, Ready)
 * behind the database Service with mariadb-operator's labels, and a Memcached `memcached` (Ready,
 * its server list); while a cluster lives, every MariaDBDatabase, MariaDBAccount and TransportURL
 * (a Secret with `fake://`) is marked Ready. The instance names the image, as upstream's defaulting
 * webhook (off outside a cluster) would. The bench's own requests are not the subject's.
 */
const repoRoot = resolve(import.meta.dirname, '../../..');
const k = (group: string, kind: string, plural: string): KindRef => ({
  group,
  version: 'v1beta1',
  kind,
  plural,
  namespaced: true,
});
const Galera = k('mariadb.openstack.org', 'Galera', 'galeras');
const MariaDBDatabase = k('mariadb.openstack.org', 'MariaDBDatabase', 'mariadbdatabases');
const MariaDBAccount = k('mariadb.openstack.org', 'MariaDBAccount', 'mariadbaccounts');
const Memcached = k('memcached.openstack.org', 'Memcached', 'memcacheds');
const TransportURL = k('rabbitmq.openstack.org', 'TransportURL', 'transporturls');
const KeystoneAPI = k('keystone.openstack.org', 'KeystoneAPI', 'keystoneapis');

type WithConditions = KubeObject & { status?: { conditions?: { type: string; status: string }[] } };
const ready = (o: WithConditions) =>
  o.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
const markReady = (client: RestKubeClient, kind: KindRef, o: KubeObject, types: string[], extra = {}) =>
  client.patch(
    kind,
    { name: o.metadata.name ?? '', namespace: o.metadata.namespace ?? '' },
    {
      status: {
        ...extra,
        conditions: types.map((type) => ({
          type,
          status: 'True',
          reason: 'Ready',
          message: 'played by the bench',
          lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
        })),
      },
    },
    'merge',
    { subresource: 'status' },
  );

/** One pass over the three kinds the Go operator creates and waits for. */
async function play(client: RestKubeClient): Promise<void> {
  for (const [kind, types] of [
    [MariaDBDatabase, ['MariaDBDatabaseReady', 'Ready']],
    [MariaDBAccount, ['MariaDBAccountReady', 'Ready']],
  ] as const)
    for (const o of (await client.list<WithConditions>(kind)).items)
      if (!ready(o)) await markReady(client, kind, o, [...types]);
  for (const o of (await client.list<WithConditions>(TransportURL)).items) {
    if (ready(o)) continue;
    const secretName = `rabbitmq-transport-url-${o.metadata.name}`;
    await client
      .create(Kinds.Secret, {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: secretName, namespace: o.metadata.namespace },
        stringData: { transport_url: 'fake://' },
      } as KubeObject)
      .catch(() => undefined);
    await markReady(client, TransportURL, o, ['TransportURLReady', 'Ready'], { secretName });
  }
}

/** The cluster being played (each run's is fresh); one loop, every 250 ms, gone with the process. */
let current: RestKubeClient | undefined;
function playWhileAlive(client: RestKubeClient): void {
  const first = current === undefined;
  current = client;
  if (!first) return;
  const tick = async () => {
    if (current) await play(current).catch(() => undefined);
    setTimeout(tick, 250).unref();
  };
  void tick();
}

/** The workload's KeystoneAPI, plus the image. */
const withImage = (ns: string) =>
  ({
    apiVersion: 'keystone.openstack.org/v1beta1',
    kind: 'KeystoneAPI',
    metadata: { name: 'keystone', namespace: ns },
    spec: { secret: 'osp-secret', containerImage: 'keystone:bench' },
  }) as KubeObject;

export function withUpstreamInfra(w: Workload): Workload {
  if (w.dir !== 'keystone') throw new Error('--play-upstream-infra applies to the keystone workload');
  const crdDir = join(repoRoot, 'tools/crd-types/crds');
  // Its maxima instance names no image: not measured for the Go operator.
  const { applyMaxima: _, ...rest } = w;
  return {
    ...rest,
    crds: () => [
      ...w.crds(),
      ...readdirSync(crdDir)
        .filter((f) => f.endsWith('.yaml'))
        .flatMap((f) => readCrds(join(crdDir, f))),
    ],
    setup: async (client) => {
      await w.setup?.(client);
      playWhileAlive(client);
    },
    prepare: async (client, ns) => {
      await w.prepare(client, ns);
      await client.patch(
        Kinds.Service,
        { name: 'openstack', namespace: ns },
        { metadata: { labels: { app: 'mariadb', cr: 'mariadb-openstack' } } },
        'merge',
      );
      const galera = await client.create(Galera, {
        apiVersion: 'mariadb.openstack.org/v1beta1',
        kind: 'Galera',
        metadata: { name: 'openstack', namespace: ns },
        spec: { containerImage: 'mariadb:bench', replicas: 1, secret: 'osp-secret', storageRequest: '1G' },
      } as KubeObject);
      await markReady(client, Galera, galera, ['Ready'], { bootstrapped: true });
      const memcached = await client.create(Memcached, {
        apiVersion: 'memcached.openstack.org/v1beta1',
        kind: 'Memcached',
        metadata: { name: 'memcached', namespace: ns },
        spec: { containerImage: 'memcached:bench', replicas: 1 },
      } as KubeObject);
      await markReady(client, Memcached, memcached, ['Ready'], {
        readyCount: 1,
        serverList: [`memcached.${ns}.svc:11211`],
        serverListWithInet: [`inet:[memcached.${ns}.svc]:11211`],
        tlsSupport: false,
      });
    },
    apply: (client, ns) => client.create(KeystoneAPI, withImage(ns)).then(() => undefined),
  };
}
