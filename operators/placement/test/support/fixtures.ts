import { KeystoneKinds } from '@stackops/keystone-operator';
import { Kinds, type KubeObject, type RestKubeClient } from '@stackops/lib-common/client';
import {
  conditionOf,
  createSecret as createPlainSecret,
  waitForCondition as waitForConditionOf,
  waitForObject,
  waitUntil,
} from '@stackops/lib-common/testing';
import type { PlacementAPISpecInput } from '../../src/api/index.js';
import { type PlacementAPI, PlacementAPIKind } from '../../src/api/kinds.js';

/**
 * install_yamls' osp-secret keys placement reads (values `12345678` there), as that Secret is
 * today: no PlacementDatabasePassword (upstream takes it from a MariaDBAccount), so the operator
 * generates the account password.
 */
export const OSP_SECRET = {
  PlacementPassword: 'placement-pw',
  DbRootPassword: 'root-pw',
};

export async function createSecret(
  client: RestKubeClient,
  namespace: string,
  data: Record<string, string> = OSP_SECRET,
  name = 'osp-secret',
): Promise<void> {
  await createPlainSecret(client, namespace, name, data);
}

export async function updateSecret(
  client: RestKubeClient,
  namespace: string,
  data: Record<string, string>,
  name = 'osp-secret',
): Promise<void> {
  await client.patch(Kinds.Secret, { name, namespace }, { stringData: data }, 'merge');
}

/** The MariaDB Service the db-create Job talks to (the Job itself runs as a kwok pod). */
export async function createDatabaseService(client: RestKubeClient, namespace: string, name = 'openstack') {
  await client.create(Kinds.Service, {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace, labels: { app: 'mariadb', cr: `mariadb-${name}` } },
    spec: { selector: { app: 'mariadb' }, ports: [{ name: 'mysql', port: 3306 }] },
  } as KubeObject);
}

export const keystoneEndpoints = (namespace: string) => ({
  public: `http://keystone-public.${namespace}.svc:5000`,
  internal: `http://keystone-internal.${namespace}.svc:5000`,
});

/**
 * A KeystoneAPI whose status says it is up (what keystone-operator would publish), for tests that
 * run placement without keystone's controllers, as upstream's functional tests do.
 */
export async function createReadyKeystoneAPI(
  client: RestKubeClient,
  namespace: string,
  endpoints = keystoneEndpoints(namespace),
  region = 'regionOne',
): Promise<void> {
  const api = await client.create<KubeObject>(KeystoneKinds.KeystoneAPI, {
    apiVersion: 'keystone.openstack.org/v1beta1',
    kind: 'KeystoneAPI',
    metadata: { name: 'keystone', namespace },
    spec: { databaseInstance: 'openstack', secret: 'osp-secret', containerImage: 'keystone:test' },
  });
  await setKeystoneAPIStatus(client, namespace, endpoints, region, api.metadata.generation ?? 1);
}

export async function setKeystoneAPIStatus(
  client: RestKubeClient,
  namespace: string,
  apiEndpoints: Record<string, string>,
  region = 'regionOne',
  generation = 1,
): Promise<void> {
  await client.patch(
    KeystoneKinds.KeystoneAPI,
    { name: 'keystone', namespace },
    {
      status: {
        apiEndpoints,
        region,
        observedGeneration: generation,
        conditions: [readyCondition()],
      },
    },
    'merge',
    { subresource: 'status' },
  );
}

const readyCondition = () => ({
  type: 'Ready',
  status: 'True',
  reason: 'Ready',
  message: 'Setup complete',
  lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
});

/** What keystone-operator would report once it registered a KeystoneService/KeystoneEndpoint. */
async function markKeystoneChildReady(
  client: RestKubeClient,
  kind: typeof KeystoneKinds.KeystoneService,
  namespace: string,
  name = 'placement',
): Promise<void> {
  const live = await client.get<KubeObject>(kind, { name, namespace });
  await client.patch(
    kind,
    { name, namespace },
    { status: { observedGeneration: live?.metadata.generation ?? 1, conditions: [readyCondition()] } },
    'merge',
    { subresource: 'status' },
  );
}

export async function createPlacementAPI(
  client: RestKubeClient,
  namespace: string,
  spec: Partial<PlacementAPISpecInput> = {},
  name = 'placement',
): Promise<PlacementAPI> {
  return client.create<PlacementAPI>(PlacementAPIKind, {
    apiVersion: 'placement.openstack.org/v1beta1',
    kind: 'PlacementAPI',
    metadata: { name, namespace },
    spec: { databaseInstance: 'openstack', secret: 'osp-secret', ...spec },
  } as PlacementAPI);
}

export const getPlacementAPI = (client: RestKubeClient, namespace: string, name = 'placement') =>
  client.get<PlacementAPI>(PlacementAPIKind, { name, namespace });

export { conditionOf };

/** lib-common's `waitForObject` on the namespace's PlacementAPI (`placement` unless named). */
export const waitForPlacement = (
  client: RestKubeClient,
  namespace: string,
  what: string,
  check: (cr: PlacementAPI) => boolean,
  opts: { timeoutMs?: number; name?: string } = {},
): Promise<PlacementAPI> =>
  waitForObject<PlacementAPI>(
    client,
    PlacementAPIKind,
    { namespace, name: opts.name ?? 'placement' },
    check,
    {
      description: what,
      ...(opts.timeoutMs === undefined ? {} : { timeoutMs: opts.timeoutMs }),
    },
  );

/** lib-common's `waitForCondition` on the PlacementAPI: the status (and, if given, message); 60 s unless told. */
export const waitForCondition = (
  client: RestKubeClient,
  namespace: string,
  type: string,
  status: 'True' | 'False' | 'Unknown',
  opts: { message?: string | RegExp; timeoutMs?: number; name?: string } = {},
) =>
  waitForConditionOf<PlacementAPI>(
    client,
    PlacementAPIKind,
    { namespace, name: opts.name ?? 'placement' },
    type,
    { status, ...(opts.message === undefined ? {} : { message: opts.message }) },
    { timeoutMs: opts.timeoutMs ?? 60_000 },
  );

/** Everything a PlacementAPI needs besides itself: Secret, database Service, a Ready KeystoneAPI. */
export async function createPrerequisites(client: RestKubeClient, namespace: string): Promise<void> {
  await createSecret(client, namespace);
  await createDatabaseService(client, namespace);
  await createReadyKeystoneAPI(client, namespace);
}

/** Reads one key of the config Secret as text. */
export async function configFile(client: RestKubeClient, namespace: string, file: string, cr = 'placement') {
  const s = await client.get<KubeObject & { data?: Record<string, string> }>(Kinds.Secret, {
    name: `${cr}-config-data`,
    namespace,
  });
  const b64 = s?.data?.[file];
  return b64 === undefined ? undefined : Buffer.from(b64, 'base64').toString('utf8');
}

/** Marks the keystone children Ready once they exist (keystone-operator's job in production). */
export async function simulateKeystoneRegistration(client: RestKubeClient, namespace: string): Promise<void> {
  for (const kind of [KeystoneKinds.KeystoneService, KeystoneKinds.KeystoneEndpoint]) {
    await waitUntil(
      `${kind.kind} placement created`,
      async () => client.get(kind, { name: 'placement', namespace }),
      {
        timeoutMs: 90_000,
      },
    );
    await markKeystoneChildReady(client, kind, namespace);
  }
}
