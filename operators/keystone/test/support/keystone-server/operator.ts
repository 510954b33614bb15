import { type KindRef, Kinds, type KubeClient, type KubeObject } from '@stackops/lib-common/client';
import { conditionOf, waitForObject, waitUntil } from '@stackops/lib-common/testing';
import { KeystoneKinds } from '../../../src/api/group.js';
import type { KeystoneAPI } from '../../../src/api/keystone-api.js';
import type { KeystoneEndpoint } from '../../../src/api/keystone-endpoint.js';
import type { KeystoneService } from '../../../src/api/keystone-service.js';
import type { IdentityClient } from '../../../src/identity/client.js';
import { externalKeystoneAPI, type KeystoneServer, startKeystoneServer } from '../../../src/testing/index.js';
import { adminClient, installCrds, newNamespace, type Operator, startOperator } from '../harness.js';

/**
 * What the KeystoneService/KeystoneEndpoint tests share: the three controllers in-process (as
 * main.ts wires them), and objects pointing a KeystoneAPI in external mode at a real Keystone.
 */

/** The PlacementPassword the tests give the service user. */
export const PLACEMENT_PASSWORD = 'placement-pw-1';

/** osp-secret as install_yamls makes it, with the real Keystone's admin password. */
export async function createOspSecret(
  client: KubeClient,
  ns: string,
  keystone: KeystoneServer,
): Promise<void> {
  await client.create(Kinds.Secret, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'osp-secret', namespace: ns },
    stringData: {
      AdminPassword: keystone.adminPassword,
      KeystoneDatabasePassword: 'keystone-db-pw',
      DbRootPassword: 'root-pw',
      PlacementPassword: PLACEMENT_PASSWORD,
    },
  } as KubeObject);
}

/** A KeystoneAPI in external mode whose public and internal endpoints are the real Keystone. */
export function createExternalKeystoneAPI(
  client: KubeClient,
  ns: string,
  keystone: KeystoneServer,
  spec: Partial<KeystoneAPI['spec']> = {},
): Promise<KeystoneAPI> {
  const api = externalKeystoneAPI(ns, keystone);
  return client.create<KeystoneAPI>(KeystoneKinds.KeystoneAPI, { ...api, spec: { ...api.spec, ...spec } });
}

/** The KeystoneService placement-operator creates (named after its serviceName, as upstream). */
export function placementService(
  ns: string,
  name = 'placement',
  spec: Partial<KeystoneService['spec']> = {},
): KeystoneService {
  return {
    apiVersion: 'keystone.openstack.org/v1beta1',
    kind: 'KeystoneService',
    metadata: { name, namespace: ns },
    spec: {
      serviceType: 'placement',
      serviceName: name,
      serviceDescription: 'Placement Service',
      enabled: true,
      serviceUser: name,
      secret: 'osp-secret',
      passwordSelector: 'PlacementPassword',
      ...spec,
    },
  };
}

/** The KeystoneEndpoint placement-operator creates for its Services. */
export function placementEndpoint(
  ns: string,
  name = 'placement',
  endpoints?: Record<string, string>,
): KeystoneEndpoint {
  return {
    apiVersion: 'keystone.openstack.org/v1beta1',
    kind: 'KeystoneEndpoint',
    metadata: { name, namespace: ns, labels: { service: 'placement' } },
    spec: {
      serviceName: name,
      endpoints: endpoints ?? {
        internal: `http://${name}-internal.${ns}.svc:8778`,
        public: `http://${name}-public.${ns}.svc:8778`,
      },
    },
  };
}

type WithConditions = KubeObject & {
  status?: { conditions?: { type: string; status: string; message?: string }[] };
};

export { conditionOf };

export const isReadyObject = (obj: WithConditions | undefined): boolean =>
  conditionOf(obj, 'Ready')?.status === 'True';

export interface KeystoneSuite {
  client: KubeClient;
  keystone: KeystoneServer;
  /** The bootstrap admin of the real Keystone. */
  admin: IdentityClient;
  operator: Operator;
  /** A fresh namespace, deleted after the file's tests. */
  namespace(prefix: string): Promise<string>;
  /** Waits (60 s unless told) until the object is Ready. */
  ready<T extends KubeObject>(kind: KindRef, ns: string, name: string, timeoutMs?: number): Promise<T>;
}

/**
 * beforeAll/afterAll for a test file: CRDs installed, a real Keystone started (the venv installed
 * on first use, hence the long hook timeout), the three controllers running; all stopped after.
 */
export function useKeystoneSuite(hooks: {
  beforeAll: (fn: () => Promise<void>, timeout?: number) => void;
  afterAll: (fn: () => Promise<void>) => void;
}): KeystoneSuite {
  const namespaces: string[] = [];
  const suite = {
    namespace: async (prefix: string) => {
      const ns = await newNamespace(suite.client, prefix);
      namespaces.push(ns);
      return ns;
    },
    ready: <T extends KubeObject>(kind: KindRef, ns: string, name: string, timeoutMs = 60_000) =>
      waitForObject<T>(suite.client, kind, { namespace: ns, name }, isReadyObject, {
        description: 'Ready',
        timeoutMs,
      }),
  } as KeystoneSuite;
  hooks.beforeAll(async () => {
    suite.client = adminClient();
    await installCrds(suite.client);
    suite.keystone = await startKeystoneServer();
    suite.admin = suite.keystone.adminClient();
    suite.operator = await startOperator({ withRegistration: true });
  }, 900_000);
  hooks.afterAll(async () => {
    await suite.operator?.stop();
    for (const ns of namespaces) await suite.client.delete(Kinds.Namespace, { name: ns }).catch(() => false);
    await suite.keystone?.stop();
  });
  return suite;
}

/**
 * Deletes namespace `ns` and waits (2 min) until it is gone, that is until every finalizer in it
 * was released; on timeout the error shows `holders()` (the finalizers still held).
 */
export async function deleteNamespaceAndWait(
  client: KubeClient,
  ns: string,
  holders: () => Promise<unknown>,
): Promise<void> {
  await client.delete(Kinds.Namespace, { name: ns });
  await waitUntil(
    'namespace gone',
    async () => (await client.get(Kinds.Namespace, { name: ns })) === undefined,
    {
      timeoutMs: 120_000,
      describe: holders,
    },
  );
}
