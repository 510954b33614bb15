import { waitForDeletion, waitForObject } from '@stackops/lib-common/testing';
import { describe, expect, it } from 'vitest';
import { KeystoneKinds } from '../src/api/group.js';
import type { KeystoneAPI } from '../src/api/keystone-api.js';
import type { KeystoneEndpoint } from '../src/api/keystone-endpoint.js';
import type { KeystoneService } from '../src/api/keystone-service.js';
import { conditionOf, isReadyObject, KE, KS, registrationSuite } from './support/catalog.js';
import { waitForStatus } from './support/keystone.js';
import {
  deleteNamespaceAndWait,
  placementEndpoint,
  placementService,
} from './support/keystone-server/operator.js';

describe('KeystoneEndpoint against a real Keystone (KeystoneAPI in external mode)', () => {
  const suite = registrationSuite('kse');

  /** A namespace with a KeystoneAPI pointing at the real Keystone, and a Ready KeystoneService `name`. */
  async function withService(name: string, api: Partial<KeystoneAPI['spec']> = {}) {
    const ns = await suite.keystoneNamespace(api);
    const { serviceID } = await suite.readyService(ns, name);
    return { ns, serviceID };
  }

  /** Keystone's endpoints of a service as `interface region url`, sorted. */
  const catalogOf = async (serviceID: string) =>
    (await suite.admin.endpoints.list({ service_id: serviceID }))
      .map((e) => `${e.interface} ${e.region_id} ${e.url}`)
      .sort();

  const finalizersOf = async (kind: typeof KS, ns: string, name: string) =>
    (await suite.client.get(kind, { namespace: ns, name }))?.metadata.finalizers ?? [];

  it('registers one endpoint per interface in the region, with upstream conditions and finalizer graph', async () => {
    const { client, admin } = suite;
    const { ns, serviceID } = await withService('placement');
    await client.create(KE, placementEndpoint(ns, 'placement'));
    const ep = await suite.ready<KeystoneEndpoint>(KE, ns, 'placement');

    const internal = `http://placement-internal.${ns}.svc:8778`;
    const pub = `http://placement-public.${ns}.svc:8778`;
    expect(await catalogOf(serviceID)).toEqual([`internal regionOne ${internal}`, `public regionOne ${pub}`]);
    expect(ep.status?.serviceID).toBe(serviceID);
    const ids = ep.status?.endpointIDs ?? {};
    expect(Object.keys(ids).sort()).toEqual(['internal', 'public']);
    expect((await admin.endpoints.get(ids['public'] ?? ''))?.url).toBe(pub);
    expect(ep.status?.endpoints).toEqual([
      { interface: 'internal', url: internal, id: ids['internal'] },
      { interface: 'public', url: pub, id: ids['public'] },
    ]);
    expect(conditionOf(ep, 'KeystoneServiceOSEndpointsReady')?.message).toBe(
      `Keystone Endpoints ready: [internal:${internal} public:${pub}]`,
    );
    expect(conditionOf(ep, 'KeystoneServiceReady')?.status).toBe('True');
    expect(ep.status?.observedGeneration).toBe(ep.metadata.generation);

    // Upstream's finalizer graph: the endpoint holds its own finalizer and one named after it on its
    // KeystoneService and on the KeystoneAPI.
    expect(ep.metadata.finalizers).toEqual(['openstack.org/keystoneendpoint']);
    expect((await finalizersOf(KS, ns, 'placement')).sort()).toEqual([
      'openstack.org/keystoneendpoint-placement',
      'openstack.org/keystoneservice',
    ]);
    expect((await finalizersOf(KeystoneKinds.KeystoneAPI, ns, 'keystone')).sort()).toEqual([
      'openstack.org/keystoneapi',
      'openstack.org/keystoneendpoint-placement',
      'openstack.org/keystoneservice-placement',
    ]);
  });

  it('updates a URL in place, deletes a removed interface and creates an added one', async () => {
    const { client, admin } = suite;
    const { ns, serviceID } = await withService('placement-upd');
    await client.create(KE, placementEndpoint(ns, 'placement-upd'));
    const before = await suite.ready<KeystoneEndpoint>(KE, ns, 'placement-upd');
    const publicId = before.status?.endpointIDs?.['public'];
    const internalId = before.status?.endpointIDs?.['internal'] ?? '';

    await client.patch(
      KE,
      { namespace: ns, name: 'placement-upd' },
      {
        spec: {
          endpoints: {
            internal: null,
            public: 'https://placement.example.test',
            admin: 'http://placement-admin:8778',
          },
        },
      },
      'merge',
    );
    const after = await waitForObject<KeystoneEndpoint>(
      client,
      KE,
      { namespace: ns, name: 'placement-upd' },
      (o) =>
        isReadyObject(o) &&
        o.status?.observedGeneration === o.metadata.generation &&
        o.status?.endpointIDs?.['admin'] !== undefined,
      { description: 'new endpoints' },
    );
    expect(await catalogOf(serviceID)).toEqual([
      'admin regionOne http://placement-admin:8778',
      'public regionOne https://placement.example.test',
    ]);
    expect(after.status?.endpointIDs?.['public']).toBe(publicId);
    expect(after.status?.endpointIDs?.['internal']).toBeUndefined();
    expect(await admin.endpoints.get(internalId)).toBeUndefined();
    expect(after.status?.endpoints?.map((e) => e.interface)).toEqual(['admin', 'public']);
  });

  it('registers in the KeystoneAPI region, creating the region when Keystone lacks it', async () => {
    const { client, admin } = suite;
    const { ns, serviceID } = await withService('placement-r2', { region: 'regionTwo' });
    await client.create(KE, placementEndpoint(ns, 'placement-r2', { public: 'http://placement-r2:8778' }));
    await suite.ready<KeystoneEndpoint>(KE, ns, 'placement-r2');
    expect(await catalogOf(serviceID)).toEqual(['public regionTwo http://placement-r2:8778']);
    expect(await admin.regions.get('regionTwo')).toBeDefined();
  });

  it('deletes its endpoints from Keystone and releases the KeystoneService and KeystoneAPI', async () => {
    const { client, admin } = suite;
    const { ns, serviceID } = await withService('placement-del');
    await client.create(KE, placementEndpoint(ns, 'placement-del'));
    const ep = await suite.ready<KeystoneEndpoint>(KE, ns, 'placement-del');
    const ids = Object.values(ep.status?.endpointIDs ?? {});
    expect(ids).toHaveLength(2);

    await client.delete(KE, { namespace: ns, name: 'placement-del' });
    await waitForDeletion(client, KE, { namespace: ns, name: 'placement-del' }, { timeoutMs: 60_000 });
    expect(await catalogOf(serviceID)).toEqual([]);
    for (const id of ids) expect(await admin.endpoints.get(id)).toBeUndefined();
    expect(await finalizersOf(KS, ns, 'placement-del')).toEqual(['openstack.org/keystoneservice']);
    expect(await finalizersOf(KeystoneKinds.KeystoneAPI, ns, 'keystone')).not.toContain(
      'openstack.org/keystoneendpoint-placement-del',
    );
    // The service itself is untouched and still Ready.
    expect(await admin.services.get(serviceID)).toBeDefined();
    expect(
      isReadyObject(await client.get<KeystoneService>(KS, { namespace: ns, name: 'placement-del' })),
    ).toBe(true);
  });

  it('waits for its KeystoneService, mirroring its state, and registers once it is ready', async () => {
    const { client } = suite;
    const ns = await suite.keystoneNamespace();
    await client.create(KE, placementEndpoint(ns, 'placement-late'));
    const waiting = await waitForStatus<KeystoneEndpoint>(
      client,
      KE,
      { namespace: ns, name: 'placement-late' },
      'KeystoneAPIReady',
      'True',
    );
    expect(conditionOf(waiting, 'KeystoneServiceOSEndpointsReady')?.status).toBe('Unknown');
    expect(conditionOf(waiting, 'Ready')?.status).not.toBe('True');

    await client.create(KS, placementService(ns, 'placement-late'));
    const ep = await suite.ready<KeystoneEndpoint>(KE, ns, 'placement-late', 90_000);
    const service = await client.get<KeystoneService>(KS, { namespace: ns, name: 'placement-late' });
    expect(ep.status?.serviceID).toBe(service?.status?.serviceID);
    expect(await catalogOf(ep.status?.serviceID ?? '')).toHaveLength(2);
  });

  it('deleting the service and its endpoint together removes both from Keystone', async () => {
    const { client, admin } = suite;
    const { ns, serviceID } = await withService('placement-both');
    await client.create(KE, placementEndpoint(ns, 'placement-both'));
    await suite.ready<KeystoneEndpoint>(KE, ns, 'placement-both');
    await client.delete(KS, { namespace: ns, name: 'placement-both' });
    await client.delete(KE, { namespace: ns, name: 'placement-both' });
    await waitForDeletion(client, KE, { namespace: ns, name: 'placement-both' }, { timeoutMs: 60_000 });
    await waitForDeletion(client, KS, { namespace: ns, name: 'placement-both' }, { timeoutMs: 60_000 });
    expect(await admin.services.get(serviceID)).toBeUndefined();
    expect(await catalogOf(serviceID)).toEqual([]);
    expect(await finalizersOf(KeystoneKinds.KeystoneAPI, ns, 'keystone')).toEqual([
      'openstack.org/keystoneapi',
    ]);
  });

  it('a namespace deletion with KeystoneAPI, KeystoneService and KeystoneEndpoint completes', async () => {
    const { client } = suite;
    const { ns } = await withService('placement-ns');
    await client.create(KE, placementEndpoint(ns, 'placement-ns'));
    await suite.ready<KeystoneEndpoint>(KE, ns, 'placement-ns');
    await deleteNamespaceAndWait(client, ns, async () => ({
      api: await finalizersOf(KeystoneKinds.KeystoneAPI, ns, 'keystone'),
      service: await finalizersOf(KS, ns, 'placement-ns'),
      endpoint: await finalizersOf(KE, ns, 'placement-ns'),
    }));
  });
});
