import { type KeystoneAPI, KeystoneKinds } from '@stackops/keystone-operator';
import { type KeystoneServer, startKeystoneServer } from '@stackops/keystone-operator/testing';
import { waitUntil } from '@stackops/lib-common/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PlacementAPIKind } from '../src/api/kinds.js';
import {
  conditionOf,
  createDatabaseService,
  createPlacementAPI,
  createSecret,
  OSP_SECRET,
  waitForCondition,
} from './support/fixtures.js';
import { useOperator } from './support/harness.js';
import { type KeystoneOperatorProcess, startKeystoneOperator } from './support/keystone-operator-process.js';

/**
 * The whole path with keystone-operator running beside placement (as its own process, as in
 * production), against a real Keystone (keystone-operator's test server on 127.0.0.1): a KeystoneAPI becomes Ready (external
 * mode, pointing at that Keystone), the PlacementAPI becomes Ready once keystone-operator registered
 * its service, user and endpoints — which are then really in Keystone — and deleting the
 * PlacementAPI removes them from Keystone again.
 */

let keystone: KeystoneServer;
let keystoneOperator: KeystoneOperatorProcess;

// Registered before the suite's hooks: after-hooks run in reverse order, so this one runs last,
// once the namespaces are gone (keystone-operator must still run to release its finalizers).
afterAll(async () => {
  await keystoneOperator?.stop();
  await keystone?.stop();
});

const suite = useOperator({ beforeAll, afterAll }, 1);

beforeAll(async () => {
  keystone = await startKeystoneServer();
  keystoneOperator = await startKeystoneOperator(suite.namespaces);
}, 600_000);

async function createKeystone(namespace: string): Promise<KeystoneAPI> {
  await createSecret(suite.client, namespace, { ...OSP_SECRET, AdminPassword: keystone.adminPassword });
  return suite.client.create<KeystoneAPI>(KeystoneKinds.KeystoneAPI, {
    apiVersion: 'keystone.openstack.org/v1beta1',
    kind: 'KeystoneAPI',
    metadata: { name: 'keystone', namespace },
    spec: {
      secret: 'osp-secret',
      region: keystone.region,
      externalKeystoneAPI: true,
      override: {
        service: { internal: { endpointURL: keystone.url }, public: { endpointURL: keystone.url } },
      },
    },
  } as KeystoneAPI);
}

describe('KeystoneAPI Ready → PlacementAPI Ready, registered in a real Keystone', () => {
  it('registers the placement service, user and endpoints, and unregisters them on deletion', async () => {
    const { client } = suite;
    const namespace = suite.namespaces[0]!;
    const admin = keystone.adminClient();

    await createKeystone(namespace);
    await waitUntil(
      'KeystoneAPI Ready',
      async () => {
        const api = await client.get<KeystoneAPI>(KeystoneKinds.KeystoneAPI, { name: 'keystone', namespace });
        return api?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
      },
      { timeoutMs: 60_000 },
    );

    await createDatabaseService(client, namespace);
    await createPlacementAPI(client, namespace);
    const ready = await waitForCondition(client, namespace, 'Ready', 'True', { timeoutMs: 180_000 });
    expect(conditionOf(ready, 'KeystoneServiceReady')).toMatchObject({
      status: 'True',
      message: 'Setup complete',
    });
    expect(conditionOf(ready, 'KeystoneEndpointReady')).toMatchObject({
      status: 'True',
      message: 'Setup complete',
    });
    // placement.conf was rendered from the KeystoneAPI keystone-operator published.
    expect(ready.status?.apiEndpoints).toEqual({
      internal: `http://placement-internal.${namespace}.svc:8778`,
      public: `http://placement-public.${namespace}.svc:8778`,
    });

    const [service] = await admin.services.list({ name: 'placement' });
    expect(service).toMatchObject({ type: 'placement', description: 'Placement Service', enabled: true });
    const [user] = await admin.users.list({ name: 'placement', domain_id: 'default' });
    expect(user).toBeDefined();
    expect(await admin.passwordWorks({ username: 'placement', password: OSP_SECRET.PlacementPassword })).toBe(
      true,
    );
    const endpoints = await admin.endpoints.list({ service_id: service!.id });
    expect(Object.fromEntries(endpoints.map((e) => [e.interface, e.url]))).toEqual(
      ready.status?.apiEndpoints,
    );
    expect(endpoints.every((e) => e.region_id === keystone.region || e.region === keystone.region)).toBe(
      true,
    );

    await client.delete(PlacementAPIKind, { name: 'placement', namespace });
    await waitUntil(
      'placement unregistered from Keystone',
      async () => {
        const services = await admin.services.list({ name: 'placement' });
        const users = await admin.users.list({ name: 'placement', domain_id: 'default' });
        return services.length === 0 && users.length === 0;
      },
      { timeoutMs: 90_000 },
    );
    expect(await admin.endpoints.list({ service_id: service!.id })).toEqual([]);
    await waitUntil(
      'keystone children and the PlacementAPI gone',
      async () =>
        !(await client.get(KeystoneKinds.KeystoneService, { name: 'placement', namespace })) &&
        !(await client.get(KeystoneKinds.KeystoneEndpoint, { name: 'placement', namespace })) &&
        !(await client.get(PlacementAPIKind, { name: 'placement', namespace })),
    );
  });
});
