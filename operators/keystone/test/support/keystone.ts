import {
  type KindRef,
  Kinds,
  type KubeClient,
  type KubeObject,
  type ObjectRef,
} from '@stackops/lib-common/client';
import {
  conditionOf,
  createSecret,
  type ExpectedCondition,
  waitForCondition,
  waitForObject,
} from '@stackops/lib-common/testing';
import { KeystoneKinds } from '../../src/api/group.js';
import type { KeystoneAPI } from '../../src/api/keystone-api.js';
import { fixture, readYaml } from './harness.js';

/** install_yamls' osp-secret keys (values `12345678` there; any valid password here). */
export const OSP_SECRET_DATA = {
  AdminPassword: '12345678',
  KeystoneDatabasePassword: 'keystone-db-pw',
  DbRootPassword: 'root-pw',
};

export async function createInputSecret(
  client: KubeClient,
  ns: string,
  data: Record<string, string> = OSP_SECRET_DATA,
  name = 'osp-secret',
): Promise<void> {
  await createSecret(client, ns, name, data);
}

/** A Service selecting the pods labelled app=`app`, with one port. */
async function createService(
  client: KubeClient,
  ns: string,
  metadata: { name: string; labels?: Record<string, string> },
  app: string,
  port: { name: string; port: number },
): Promise<void> {
  await client.create(Kinds.Service, {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { ...metadata, namespace: ns },
    spec: { selector: { app }, ports: [port] },
  } as KubeObject);
}

/** The MariaDB Service `openstack` the db-create Job talks to (its Job runs as a fake pod). */
export const createDatabaseService = (client: KubeClient, ns: string, name = 'openstack') =>
  createService(client, ns, { name, labels: { app: 'mariadb', cr: `mariadb-${name}` } }, 'mariadb', {
    name: 'mysql',
    port: 3306,
  });

/**
 * The Service `memcached` that `memcachedInstance` names by default (upstream's control plane has
 * infra-operator's Memcached `memcached`; without that CR keystone takes a Service of the name).
 */
export const createMemcachedService = (client: KubeClient, ns: string, name = 'memcached') =>
  createService(client, ns, { name }, 'memcached', { name: 'memcached', port: 11211 });

/** Creates a KeystoneAPI from a fixture file (namespace set here, nothing else changed). */
export async function createKeystoneFromFixture(
  client: KubeClient,
  ns: string,
  file: string,
): Promise<KeystoneAPI> {
  const [cr] = readYaml<KeystoneAPI>(fixture(file));
  if (!cr) throw new Error(`no object in ${file}`);
  return client.create(KeystoneKinds.KeystoneAPI, { ...cr, metadata: { ...cr.metadata, namespace: ns } });
}

export { conditionOf };

/** lib-common's `waitForObject` on the namespace's KeystoneAPI (`keystone` unless named). */
/**
 * The object once its condition `type` has `status` (60 s, as `waitForObject`); its other fields
 * are the test's to check on what was first seen.
 */
export const waitForStatus = <T extends KubeObject>(
  client: KubeClient,
  kind: KindRef,
  ref: ObjectRef,
  type: string,
  status: ExpectedCondition['status'],
): Promise<T> => waitForCondition<T>(client, kind, ref, type, { status }, { timeoutMs: 60_000 });

/** The KeystoneAPI once its condition `type` has `status` (60 s unless told). */
export const waitForKeystoneCondition = (
  client: KubeClient,
  ns: string,
  type: string,
  status: ExpectedCondition['status'],
  timeoutMs = 60_000,
): Promise<KeystoneAPI> =>
  waitForCondition<KeystoneAPI>(
    client,
    KeystoneKinds.KeystoneAPI,
    { namespace: ns, name: 'keystone' },
    type,
    { status },
    { timeoutMs },
  );

export const waitForKeystone = (
  client: KubeClient,
  ns: string,
  what: string,
  check: (cr: KeystoneAPI) => boolean,
  opts: { timeoutMs?: number; name?: string } = {},
): Promise<KeystoneAPI> =>
  waitForObject<KeystoneAPI>(
    client,
    KeystoneKinds.KeystoneAPI,
    { namespace: ns, name: opts.name ?? 'keystone' },
    check,
    {
      description: what,
      ...(opts.timeoutMs === undefined ? {} : { timeoutMs: opts.timeoutMs }),
    },
  );

/** The endpoints a KeystoneAPI in `ns` publishes by default: its two Services' in-cluster http URLs. */
export const serviceEndpoints = (ns: string) => ({
  internal: `http://keystone-internal.${ns}.svc:5000`,
  public: `http://keystone-public.${ns}.svc:5000`,
});

export const isReady = (cr: KeystoneAPI): boolean =>
  conditionOf(cr, 'Ready')?.status === 'True' && cr.status?.observedGeneration === cr.metadata.generation;

/**
 * A namespace with osp-secret (`secretData`, the examples' by default), the `openstack` MariaDB
 * Service and the `memcached` Service, as the examples expect.
 */
export async function preparedNamespace(
  suite: {
    client: KubeClient;
    namespace(): Promise<string>;
  },
  secretData: Record<string, string> = OSP_SECRET_DATA,
): Promise<string> {
  const ns = await suite.namespace();
  await createInputSecret(suite.client, ns, secretData);
  await createDatabaseService(suite.client, ns);
  await createMemcachedService(suite.client, ns);
  return ns;
}

/**
 * The namespace's KeystoneAPI once Ready for its generation (90 s by default: a first rollout runs
 * db-create, db-sync and bootstrap).
 */
export const waitForKeystoneReady = (
  client: KubeClient,
  ns: string,
  timeoutMs = 90_000,
): Promise<KeystoneAPI> => waitForKeystone(client, ns, 'Ready', isReady, { timeoutMs });

/** A `preparedNamespace` with a KeystoneAPI `keystone` of `spec`, once Ready. */
export async function readyKeystone(
  suite: Parameters<typeof preparedNamespace>[0],
  spec: Partial<KeystoneAPI['spec']> = {},
): Promise<{ client: KubeClient; ns: string; ready: KeystoneAPI }> {
  const ns = await preparedNamespace(suite);
  await createKeystone(suite.client, ns, spec);
  return { client: suite.client, ns, ready: await waitForKeystoneReady(suite.client, ns) };
}

/** Creates a KeystoneAPI from a spec (name `keystone`). */
export function createKeystone(
  client: KubeClient,
  ns: string,
  spec: Partial<KeystoneAPI['spec']> = {},
  name = 'keystone',
) {
  return client.create<KeystoneAPI>(KeystoneKinds.KeystoneAPI, {
    apiVersion: 'keystone.openstack.org/v1beta1',
    kind: 'KeystoneAPI',
    metadata: { name, namespace: ns },
    spec: { secret: 'osp-secret', ...spec },
  });
}

/** Merge-patches a KeystoneAPI's spec. */
export function patchKeystoneSpec(
  client: KubeClient,
  ns: string,
  spec: Record<string, unknown>,
  name = 'keystone',
) {
  return client.patch<KeystoneAPI>(KeystoneKinds.KeystoneAPI, { name, namespace: ns }, { spec }, 'merge');
}
