import { setTimeout as sleep } from 'node:timers/promises';
import type { KubeObject } from '@stackops/lib-common/client';
import { waitForDeletion, waitForObject, writesOver } from '@stackops/lib-common/testing';
import { describe, expect, it } from 'vitest';
import type { KeystoneEndpoint } from '../src/api/keystone-endpoint.js';
import type { KeystoneService } from '../src/api/keystone-service.js';
import { conditionOf, isReadyObject, KE, KS, registrationSuite } from './support/catalog.js';
import {
  PLACEMENT_PASSWORD,
  placementEndpoint,
  placementService,
} from './support/keystone-server/operator.js';

/** How long the writes of a namespace with a refused second object are counted. */
const WINDOW_MS = 10_000;

describe('two KeystoneServices / KeystoneEndpoints naming the same thing in one namespace (real Keystone)', () => {
  const suite = registrationSuite('kstwo');

  /** Waits until condition `type` is False with reason Error and a message matching `message`. */
  const refused = (kind: typeof KS, ns: string, name: string, type: string, message: RegExp) =>
    waitForObject<KubeObject>(
      suite.client,
      kind,
      { namespace: ns, name },
      (o) =>
        conditionOf(o, type)?.status === 'False' &&
        message.test(conditionOf(o, type)?.message ?? '') &&
        conditionOf(o, 'Ready')?.status === 'False',
      { description: `${type} refused` },
    );

  /** The operator's writes into `ns` over the window, once the refusal has settled. */
  async function writesOverWindow(ns: string): Promise<number> {
    await sleep(1_000);
    return writesOver(suite.operator.manager.client, ns, WINDOW_MS);
  }

  const resourceVersion = async (kind: typeof KS, ns: string, name: string) =>
    (await suite.client.get(kind, { namespace: ns, name }))?.metadata.resourceVersion;

  it('the second KeystoneService is refused, writes a bounded number of times, and nothing of the first changes, even when it is deleted', async () => {
    const { client, admin } = suite;
    const ns = await suite.keystoneNamespace();
    const twin = { serviceName: 'twin', serviceType: 'twin-type' };
    const { cr: first, serviceID } = await suite.readyService(ns, 'first', {
      ...twin,
      serviceUser: 'twin-first',
    });
    const userID = first.status?.userID ?? '';
    const inKeystone = async () => ({
      service: await admin.services.get(serviceID),
      user: await admin.users.get(userID),
      password: await admin.passwordWorks({ username: 'twin-first', password: PLACEMENT_PASSWORD }),
    });
    const keystoneBefore = await inKeystone();
    expect(keystoneBefore.password).toBe(true);
    const firstVersion = await resourceVersion(KS, ns, 'first');

    await client.create(KS, placementService(ns, 'second', { ...twin, serviceUser: 'twin-second' }));
    const second = await refused(
      KS,
      ns,
      'second',
      'KeystoneServiceOSServiceReady',
      new RegExp(
        `^service "twin" \\(type twin-type\\) is not owned by this KeystoneService \\(it belongs to KeystoneService ${ns}/first\\)$`,
      ),
    );
    expect(conditionOf(second, 'KeystoneServiceOSServiceReady')).toMatchObject({ severity: 'Error' });
    expect(await writesOverWindow(ns)).toBeLessThanOrEqual(2);
    // Refused at the service: its user was never made; the first's CR and Keystone objects are as they were.
    expect(await admin.users.list({ name: 'twin-second', domain_id: 'default' })).toEqual([]);
    expect(await resourceVersion(KS, ns, 'first')).toBe(firstVersion);
    expect(await inKeystone()).toEqual(keystoneBefore);

    await client.delete(KS, { namespace: ns, name: 'second' });
    await waitForDeletion(client, KS, { namespace: ns, name: 'second' }, { timeoutMs: 60_000 });
    expect(await inKeystone()).toEqual(keystoneBefore);
    expect(await resourceVersion(KS, ns, 'first')).toBe(firstVersion);
  });

  it('the second KeystoneEndpoint of a service is refused, writes a bounded number of times, and nothing of the first changes, even when it is deleted', async () => {
    const { client, admin } = suite;
    const ns = await suite.keystoneNamespace();
    await client.create(KS, placementService(ns, 'twin-ep', { serviceType: 'twin-ep-type' }));
    await client.create(KE, placementEndpoint(ns, 'twin-ep'));
    const service = await suite.ready<KeystoneService>(KS, ns, 'twin-ep');
    await suite.ready<KeystoneEndpoint>(KE, ns, 'twin-ep');
    const serviceID = service.status?.serviceID ?? '';
    const catalog = async () =>
      (await admin.endpoints.list({ service_id: serviceID }))
        .map((e) => `${e.id} ${e.interface} ${e.url} ${e.region_id ?? ''}`)
        .sort();
    const catalogBefore = await catalog();
    expect(catalogBefore).toHaveLength(2);
    const firstVersion = await resourceVersion(KE, ns, 'twin-ep');

    await client.create(KE, {
      ...placementEndpoint(ns, 'twin-ep-second', {
        internal: 'http://second-internal:1',
        public: 'http://second-public:2',
      }),
      spec: {
        serviceName: 'twin-ep',
        endpoints: { internal: 'http://second-internal:1', public: 'http://second-public:2' },
      },
    });
    const second = await refused(
      KE,
      ns,
      'twin-ep-second',
      'KeystoneServiceOSEndpointsReady',
      new RegExp(
        `of service "twin-ep" is not owned by this KeystoneEndpoint \\(it belongs to KeystoneEndpoint ${ns}/twin-ep\\)$`,
      ),
    );
    expect(conditionOf(second, 'KeystoneServiceOSEndpointsReady')).toMatchObject({ severity: 'Error' });
    expect(await writesOverWindow(ns)).toBeLessThanOrEqual(2);
    expect(await catalog()).toEqual(catalogBefore);
    expect(await resourceVersion(KE, ns, 'twin-ep')).toBe(firstVersion);

    await client.delete(KE, { namespace: ns, name: 'twin-ep-second' });
    await waitForDeletion(client, KE, { namespace: ns, name: 'twin-ep-second' }, { timeoutMs: 60_000 });
    expect(await catalog()).toEqual(catalogBefore);
    expect(await resourceVersion(KE, ns, 'twin-ep')).toBe(firstVersion);
    expect(isReadyObject(await client.get<KeystoneEndpoint>(KE, { namespace: ns, name: 'twin-ep' }))).toBe(
      true,
    );
  });
});
