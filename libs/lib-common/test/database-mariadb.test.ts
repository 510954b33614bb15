import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKubeClient, type RestKubeClient } from '../src/client/client.js';
import { type KindRef, Kinds } from '../src/client/kinds.js';
import type { KubeObject } from '../src/client/types.js';
import { Conditions } from '../src/conditions/conditions.js';
import {
  findGalera,
  type MariaDbRequest,
  reconcileMariaDb,
  releaseMariaDbFinalizers,
} from '../src/database/index.js';
import { ExternalKinds } from '../src/external/index.js';
import { installCrds } from '../src/testing/crds.js';
import { loadTestKubeConfig } from '../src/testing/kubeconfig.js';
import { createTestNamespace, type TestNamespace } from '../src/testing/namespace.js';

// mariadb-operator's CRDs as tools/crd-types describes them (the source of the generated types).
const CRDS = fileURLToPath(new URL('../../../tools/crd-types/crds/', import.meta.url));
const FINALIZER = 'openstack.org/keystoneapi';

const kc = loadTestKubeConfig();
let client: RestKubeClient;
let ns: TestNamespace;
let owner: KubeObject;

const request = (): MariaDbRequest => ({
  owner,
  namespace: ns.name,
  instance: 'openstack',
  databaseName: 'keystone',
  databaseCrName: 'keystone',
  accountName: 'keystone',
  userNamePrefix: 'keystone',
  requireTLS: false,
  finalizer: FINALIZER,
  labels: { service: 'keystone' },
});

/** Plays mariadb-operator: its controllers report Ready conditions on the status subresource. */
async function markReady(kind: KindRef, name: string, type: string, extra = {}) {
  await client.patch(
    kind,
    { name, namespace: ns.name },
    {
      status: {
        ...extra,
        conditions: [{ type, status: 'True', lastTransitionTime: new Date().toISOString() }],
      },
    },
    'merge',
    { subresource: 'status' },
  );
}

beforeAll(async () => {
  client = createKubeClient(kc, { fieldManager: 'stackops-mariadb-test' });
  await installCrds(client, CRDS);
  ns = await createTestNamespace(client, 'mariadb');
  // Any namespaced object can stand for the service CR: it owns and holds finalizers the same way.
  owner = await client.create(Kinds.ConfigMap, {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'keystone-cr', namespace: ns.name },
  });
  await client.create(ExternalKinds.Galera, {
    apiVersion: 'mariadb.openstack.org/v1beta1',
    kind: 'Galera',
    metadata: { name: 'openstack', namespace: ns.name },
    spec: { containerImage: 'mariadb', replicas: 1, secret: 'osp-secret', storageRequest: '1G' },
  });
});
afterAll(async () => {
  await ns?.delete();
  client?.close();
});

describe('mariadb-operator mode against its CRDs on a real API server', () => {
  it('finds a Galera CR by name, and nothing for a plain Service name', async () => {
    expect((await findGalera(client, 'openstack', ns.name))?.metadata.name).toBe('openstack');
    expect(await findGalera(client, 'my-mariadb', ns.name)).toBeUndefined();
  });

  it('creates the account, its Secret and the database as upstream, waits for mariadb-operator, then connects with the account', async () => {
    const conditions = new Conditions();
    // 1: account + Secret, then the MariaDBDatabase (a write is followed by a wait).
    expect(await reconcileMariaDb(client, conditions, request())).toEqual({
      ready: false,
      retryAfterMs: 5000,
    });
    expect(conditions.get('MariaDBAccountReady')).toMatchObject({
      status: 'True',
      message: 'MariaDBAccount creation complete',
    });
    expect(conditions.get('DBReady')).toMatchObject({
      status: 'False',
      reason: 'Requested',
      message: 'DB create job still running',
    });
    const account = await client.get<KubeObject & { spec: Record<string, unknown> }>(
      ExternalKinds.MariaDBAccount,
      {
        name: 'keystone',
        namespace: ns.name,
      },
    );
    expect(account?.spec).toMatchObject({
      secret: 'keystone-db-secret',
      requireTLS: false,
      accountType: 'User',
    });
    expect(account?.spec['userName']).toMatch(/^keystone_[0-9a-f]{4}$/);
    expect(account?.metadata.finalizers).toEqual([FINALIZER]);
    expect(account?.metadata.ownerReferences?.[0]).toMatchObject({ name: 'keystone-cr', controller: true });
    const secret = await client.get<KubeObject & { immutable?: boolean; data: Record<string, string> }>(
      Kinds.Secret,
      { name: 'keystone-db-secret', namespace: ns.name },
    );
    expect(secret?.immutable).toBe(true);
    const password = Buffer.from(secret?.data['DatabasePassword'] ?? '', 'base64').toString();
    expect(password).toMatch(/^[0-9a-f]{32}$/);
    const db = await client.get<KubeObject & { spec: Record<string, unknown> }>(
      ExternalKinds.MariaDBDatabase,
      {
        name: 'keystone',
        namespace: ns.name,
      },
    );
    expect(db?.spec['name']).toBe('keystone');
    expect(db?.metadata.labels).toEqual({ service: 'keystone', dbName: 'openstack' });
    expect(db?.metadata.finalizers).toEqual([FINALIZER]);

    // 2: no database Service yet (mariadb-operator creates it with these labels).
    expect(await reconcileMariaDb(client, conditions, request())).toEqual({
      ready: false,
      retryAfterMs: 10000,
    });
    await client.create(Kinds.Service, {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: {
        name: 'openstack',
        namespace: ns.name,
        labels: { app: 'mariadb', cr: 'mariadb-openstack' },
      },
      spec: { ports: [{ port: 3306 }] },
    });
    // 3: the account gets the database label; 4: mariadb-operator has not reported yet.
    expect((await reconcileMariaDb(client, conditions, request())).ready).toBe(false);
    const labelled = await client.get(ExternalKinds.MariaDBAccount, { name: 'keystone', namespace: ns.name });
    expect(labelled?.metadata.labels).toEqual({ mariaDBDatabaseName: 'keystone' });
    expect((await reconcileMariaDb(client, conditions, request())).ready).toBe(false);
    expect(conditions.get('DBReady')?.message).toBe('DB create job still running');

    await markReady(ExternalKinds.MariaDBDatabase, 'keystone', 'MariaDBDatabaseReady', { tlsSupport: true });
    await markReady(ExternalKinds.MariaDBAccount, 'keystone', 'MariaDBAccountReady');
    const outcome = await reconcileMariaDb(client, conditions, request());
    expect(outcome).toEqual({
      ready: true,
      connection: {
        hostname: `openstack.${ns.name}.svc`,
        user: account?.spec['userName'],
        password,
        tlsSupport: true,
      },
    });
    expect(conditions.get('DBReady')).toMatchObject({ status: 'True', message: 'DB create completed' });

    // Once converged a pass writes nothing.
    const before = await client.get(ExternalKinds.MariaDBAccount, { name: 'keystone', namespace: ns.name });
    expect((await reconcileMariaDb(client, conditions, request())).ready).toBe(true);
    const after = await client.get(ExternalKinds.MariaDBAccount, { name: 'keystone', namespace: ns.name });
    expect(after?.metadata.resourceVersion).toBe(before?.metadata.resourceVersion);
  });

  it('keeps requireTLS in step and reports a broken account Secret on MariaDBAccountReady', async () => {
    const conditions = new Conditions();
    await reconcileMariaDb(client, conditions, { ...request(), requireTLS: true });
    const account = await client.get<KubeObject & { spec: Record<string, unknown> }>(
      ExternalKinds.MariaDBAccount,
      {
        name: 'keystone',
        namespace: ns.name,
      },
    );
    expect(account?.spec['requireTLS']).toBe(true);

    await client.create(ExternalKinds.MariaDBAccount, {
      apiVersion: 'mariadb.openstack.org/v1beta1',
      kind: 'MariaDBAccount',
      metadata: { name: 'other', namespace: ns.name },
      spec: { userName: 'other', secret: 'other-secret' },
    });
    await client.create(Kinds.Secret, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'other-secret', namespace: ns.name },
      stringData: { WrongKey: 'x' },
    });
    const failed = await reconcileMariaDb(client, conditions, { ...request(), accountName: 'other' });
    expect(failed.ready).toBe(false);
    expect(conditions.get('MariaDBAccountReady')).toMatchObject({
      status: 'False',
      severity: 'Warning',
      message: 'MariaDBAccount is not present: field DatabasePassword not found in Secret other-secret',
    });
  });

  it('releases its finalizer from the database, the account and the Secret on deletion', async () => {
    await releaseMariaDbFinalizers(client, {
      namespace: ns.name,
      databaseCrName: 'keystone',
      accountName: 'keystone',
      finalizer: FINALIZER,
    });
    for (const kind of [ExternalKinds.MariaDBDatabase, ExternalKinds.MariaDBAccount]) {
      const obj = await client.get(kind, { name: 'keystone', namespace: ns.name });
      expect(obj?.metadata.finalizers ?? []).toEqual([]);
    }
  });
});
