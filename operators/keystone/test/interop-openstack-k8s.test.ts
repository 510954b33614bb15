import { fileURLToPath } from 'node:url';
import { Kinds, type KubeClient, type KubeObject } from '@stackops/lib-common/client';
import { ExternalKinds } from '@stackops/lib-common/external';
import { installCrds, waitUntil } from '@stackops/lib-common/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeystoneKinds } from '../src/api/group.js';
import { getObject, useOperator } from './support/harness.js';
import { createInputSecret, createKeystone, isReady, waitForKeystone } from './support/keystone.js';

// mariadb-operator's and infra-operator's CRDs as tools/crd-types describes them (ADR 0013).
const INTEROP_CRDS = fileURLToPath(new URL('../../../tools/crd-types/crds/', import.meta.url));
const now = () => new Date().toISOString();

/** What mariadb-operator and infra-operator would have created in the namespace. */
async function openstackK8sNamespace(client: KubeClient, ns: string) {
  await createInputSecret(client, ns);
  await client.create(ExternalKinds.Galera, {
    apiVersion: 'mariadb.openstack.org/v1beta1',
    kind: 'Galera',
    metadata: { name: 'openstack', namespace: ns },
    spec: { containerImage: 'mariadb', replicas: 1, secret: 'osp-secret', storageRequest: '1G' },
  });
  await client.create(Kinds.Service, {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'openstack', namespace: ns, labels: { app: 'mariadb', cr: 'mariadb-openstack' } },
    spec: { ports: [{ name: 'mysql', port: 3306 }] },
  });
  await client.create(ExternalKinds.Memcached, {
    apiVersion: 'memcached.openstack.org/v1beta1',
    kind: 'Memcached',
    metadata: { name: 'memcached', namespace: ns },
    spec: { containerImage: 'memcached', replicas: 2 },
  });
  await client.patch(
    ExternalKinds.Memcached,
    { name: 'memcached', namespace: ns },
    {
      status: {
        conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: now() }],
        serverList: [`memcached-0.memcached.${ns}.svc:11211`, `memcached-1.memcached.${ns}.svc:11211`],
        serverListWithInet: [
          `inet:[memcached-0.memcached.${ns}.svc]:11211`,
          `inet:[memcached-1.memcached.${ns}.svc]:11211`,
        ],
      },
    },
    'merge',
    { subresource: 'status' },
  );
}

/** Plays mariadb-operator once keystone's CRs exist: their Ready conditions, as its controllers set them. */
async function mariadbOperatorReports(client: KubeClient, ns: string) {
  for (const [kind, type] of [
    [ExternalKinds.MariaDBDatabase, 'MariaDBDatabaseReady'],
    [ExternalKinds.MariaDBAccount, 'MariaDBAccountReady'],
  ] as const) {
    await waitUntil(`${kind.kind} keystone`, () => client.get(kind, { name: 'keystone', namespace: ns }), {
      timeoutMs: 60_000,
    });
    await client.patch(
      kind,
      { name: 'keystone', namespace: ns },
      { status: { conditions: [{ type, status: 'True', lastTransitionTime: now() }] } },
      'merge',
      { subresource: 'status' },
    );
  }
}

describe('KeystoneAPI in an openstack-k8s-operators shaped namespace (Galera, Memcached CRs)', () => {
  const suite = useOperator({ beforeAll, afterAll });
  beforeAll(async () => {
    await installCrds(suite.client, INTEROP_CRDS);
  });

  it('becomes Ready through MariaDBDatabase/MariaDBAccount and the Memcached CR, with no db-create Job', async () => {
    const client = suite.client;
    const ns = await suite.namespace();
    await openstackK8sNamespace(client, ns);
    await createKeystone(client, ns, { databaseInstance: 'openstack', memcachedInstance: 'memcached' });
    await mariadbOperatorReports(client, ns);
    const cr = await waitForKeystone(client, ns, 'KeystoneAPI Ready', isReady, { timeoutMs: 120_000 });

    expect(cr.status?.databaseHostname).toBe(`openstack.${ns}.svc`);
    expect(await getObject(client, Kinds.Job, ns, 'keystone-db-create')).toBeUndefined();
    const account = await getObject<KubeObject & { spec: { userName: string } }>(
      client,
      ExternalKinds.MariaDBAccount,
      ns,
      'keystone',
    );
    expect(account?.metadata.finalizers).toContain('openstack.org/keystoneapi');
    const memcached = await getObject(client, ExternalKinds.Memcached, ns, 'memcached');
    expect(memcached?.metadata.finalizers).toContain('openstack.org/keystoneapi');

    const config = await getObject<KubeObject & { data?: Record<string, string> }>(
      client,
      Kinds.Secret,
      ns,
      'keystone-config-data',
    );
    const conf = Buffer.from(config?.data?.['keystone.conf'] ?? '', 'base64').toString();
    expect(conf).toContain(`mysql+pymysql://${account?.spec.userName}:`);
    expect(conf).toContain(`@openstack.${ns}.svc/keystone?`);
    expect(conf).toMatch(/memcache_servers\s*=\s*\S*memcached-0\.memcached\.\S*memcached-1\.memcached\./);

    // Deleting the KeystoneAPI lets go of mariadb-operator's CRs (GC then deletes them with it).
    await client.delete(KeystoneKinds.KeystoneAPI, { name: 'keystone', namespace: ns });
    await waitUntil(
      'keystone finalizer off the MariaDBDatabase',
      async () => {
        const db = await client.get(ExternalKinds.MariaDBDatabase, { name: 'keystone', namespace: ns });
        return !db?.metadata.finalizers?.includes('openstack.org/keystoneapi');
      },
      { timeoutMs: 60_000 },
    );
  });
});
