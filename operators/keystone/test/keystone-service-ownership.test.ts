import { Kinds } from '@stackops/lib-common/client';
import { eventsIn, waitForDeletion, waitForObject, waitUntil } from '@stackops/lib-common/testing';
import { afterAll, describe, expect, it } from 'vitest';
import type { KeystoneEndpoint } from '../src/api/keystone-endpoint.js';
import type { KeystoneService } from '../src/api/keystone-service.js';
import { conditionOf, isReadyObject, KE, KS, registrationSuite } from './support/catalog.js';
import {
  PLACEMENT_PASSWORD,
  placementEndpoint,
  placementService,
} from './support/keystone-server/operator.js';

const ADOPT = 'keystone.openstack.org/adopt';

// The drift re-check runs every 3 s here (5 min by default), read when the controllers register.
const savedResync = process.env.KEYSTONE_RESYNC_PERIOD;
process.env.KEYSTONE_RESYNC_PERIOD = '3s';

describe('Keystone objects have owners; drift is repaired (real Keystone, KeystoneAPI in external mode)', () => {
  const suite = registrationSuite('kso');
  afterAll(() => {
    if (savedResync === undefined) delete process.env.KEYSTONE_RESYNC_PERIOD;
    else process.env.KEYSTONE_RESYNC_PERIOD = savedResync;
  });

  const userNamed = async (name: string) => (await suite.admin.users.list({ name, domain_id: 'default' }))[0];
  const catalogOf = async (serviceID: string) =>
    (await suite.admin.endpoints.list({ service_id: serviceID }))
      .map((e) => `${e.interface} ${e.url}`)
      .sort();

  /** Waits for an Event of `reason` on the object whose message matches. */
  const eventOf = (ns: string, name: string, reason: string, message: string | RegExp) =>
    waitUntil(`${reason} event on ${ns}/${name}`, async () =>
      (await eventsIn(suite.client, ns)).find(
        (e) =>
          e.involvedObject?.name === name &&
          e.reason === reason &&
          (typeof message === 'string' ? e.message === message : message.test(e.message ?? '')),
      ),
    );

  /** Waits until condition `type` of the object is False with severity Error, and returns its message. */
  async function refusedWith(kind: typeof KS, ns: string, name: string, type: string): Promise<string> {
    const obj = await waitForObject<KeystoneService>(
      suite.client,
      kind,
      { namespace: ns, name },
      (o) =>
        conditionOf(o, type)?.status === 'False' &&
        (conditionOf(o, type) as { reason?: string } | undefined)?.reason === 'Error',
      { description: `${type} refused` },
    );
    expect(conditionOf(obj, type)).toMatchObject({ severity: 'Error' });
    expect(conditionOf(obj, 'Ready')?.status).toBe('False');
    return conditionOf(obj, type)?.message ?? '';
  }

  /** Puts the adopt annotation on a KeystoneService or KeystoneEndpoint. */
  const annotateAdopt = (kind: typeof KS, ns: string, name: string) =>
    suite.client.patch(
      kind,
      { namespace: ns, name },
      { metadata: { annotations: { [ADOPT]: 'true' } } },
      'merge',
    );

  /** Namespaces of a finished test go at once: fewer objects resyncing against the one Keystone. */
  const cleanUp = async (...namespaces: string[]) => {
    for (const ns of namespaces) await suite.client.delete(Kinds.Namespace, { name: ns }).catch(() => false);
  };

  it('serviceUser: admin is refused (even with the adopt annotation); the admin password stays; deleting the CR deletes nothing of admin', async () => {
    const { client, admin, keystone } = suite;
    const ns = await suite.keystoneNamespace();
    const adminId = (await userNamed('admin'))?.id ?? '';
    await client.create(KS, placementService(ns, 'evil-admin', { serviceUser: 'admin' }));
    const message = 'user "admin" is not owned by this KeystoneService (it is the admin user)';
    expect(await refusedWith(KS, ns, 'evil-admin', 'KeystoneServiceOSUserReady')).toBe(message);
    await eventOf(ns, 'evil-admin', 'NotOwned', message);

    await annotateAdopt(KS, ns, 'evil-admin');
    // A few resyncs later it is still refused and admin's password is still Keystone's own.
    await new Promise((r) => setTimeout(r, 7_000));
    expect(await refusedWith(KS, ns, 'evil-admin', 'KeystoneServiceOSUserReady')).toBe(message);
    expect(await admin.passwordWorks({ username: 'admin', password: keystone.adminPassword })).toBe(true);
    expect(await admin.passwordWorks({ username: 'admin', password: PLACEMENT_PASSWORD })).toBe(false);
    expect((await admin.users.get(adminId))?.stackops_owner).toBeUndefined();

    await client.delete(KS, { namespace: ns, name: 'evil-admin' });
    await waitForDeletion(client, KS, { namespace: ns, name: 'evil-admin' }, { timeoutMs: 60_000 });
    expect(await admin.users.get(adminId)).toBeDefined();
    expect(await admin.passwordWorks({ username: 'admin', password: keystone.adminPassword })).toBe(true);
    await cleanUp(ns);
  });

  it('the user of another KeystoneService is refused from another namespace, shared read-only from the same Secret key in its own, and deleting either deletes nothing', async () => {
    const { client, admin } = suite;
    const nsA = await suite.keystoneNamespace();
    await client.create(KS, placementService(nsA, 'victim'));
    await suite.ready(KS, nsA, 'victim');
    const victimId = (await userNamed('victim'))?.id ?? '';

    const nsB = await suite.keystoneNamespace();
    await client.patch(
      Kinds.Secret,
      { namespace: nsB, name: 'osp-secret' },
      { stringData: { PlacementPassword: 'attacker-pw' } },
      'merge',
    );
    await client.create(
      KS,
      placementService(nsB, 'attacker', { serviceUser: 'victim', serviceType: 'attack' }),
    );
    const message = `user "victim" is not owned by this KeystoneService (it belongs to KeystoneService ${nsA}/victim)`;
    expect(await refusedWith(KS, nsB, 'attacker', 'KeystoneServiceOSUserReady')).toBe(message);
    await eventOf(nsB, 'attacker', 'NotOwned', message);
    expect(await admin.passwordWorks({ username: 'victim', password: PLACEMENT_PASSWORD })).toBe(true);
    expect(await admin.passwordWorks({ username: 'victim', password: 'attacker-pw' })).toBe(false);

    await client.delete(KS, { namespace: nsB, name: 'attacker' });
    await waitForDeletion(client, KS, { namespace: nsB, name: 'attacker' }, { timeoutMs: 60_000 });
    expect(await admin.users.get(victimId)).toBeDefined();

    // Upstream's manila/designate: a second service of the same namespace with the same user and key.
    await client.create(
      KS,
      placementService(nsA, 'victimv2', { serviceUser: 'victim', serviceType: 'victim-v2' }),
    );
    const sharing = await suite.ready<KeystoneService>(KS, nsA, 'victimv2');
    expect(conditionOf(sharing, 'KeystoneServiceOSUserReady')?.message).toBe(
      `Keystone Service user victim (shared with KeystoneService ${nsA}/victim) ready`,
    );
    expect(sharing.status?.userID ?? '').toBe('');
    await client.delete(KS, { namespace: nsA, name: 'victimv2' });
    await waitForDeletion(client, KS, { namespace: nsA, name: 'victimv2' }, { timeoutMs: 60_000 });
    expect(await admin.users.get(victimId)).toBeDefined();
    expect(isReadyObject(await client.get<KeystoneService>(KS, { namespace: nsA, name: 'victim' }))).toBe(
      true,
    );
    await cleanUp(nsA, nsB);
  });

  it('a second KeystoneService naming the same service is refused; the first keeps it; deleting the second deletes nothing', async () => {
    const { client, admin } = suite;
    const ns = await suite.keystoneNamespace();
    const dup = { serviceName: 'dup', serviceType: 'dup-type' };
    const { serviceID } = await suite.readyService(ns, 'first', { ...dup, serviceUser: 'dup-first' });

    const nsB = await suite.keystoneNamespace();
    await client.create(KS, placementService(nsB, 'second', { ...dup, serviceUser: 'dup-second' }));
    const message = `service "dup" (type dup-type) is not owned by this KeystoneService (it belongs to KeystoneService ${ns}/first)`;
    expect(await refusedWith(KS, nsB, 'second', 'KeystoneServiceOSServiceReady')).toBe(message);
    await eventOf(nsB, 'second', 'NotOwned', message);
    // Refused at the service: its user was never created.
    expect(await userNamed('dup-second')).toBeUndefined();

    await client.delete(KS, { namespace: nsB, name: 'second' });
    await waitForDeletion(client, KS, { namespace: nsB, name: 'second' }, { timeoutMs: 60_000 });
    expect(await admin.services.get(serviceID)).toBeDefined();
    expect(await userNamed('dup-first')).toBeDefined();
    expect(isReadyObject(await client.get<KeystoneService>(KS, { namespace: ns, name: 'first' }))).toBe(true);
    await cleanUp(ns, nsB);
  });

  it("KeystoneEndpoints of another namespace or another CR cannot overwrite or delete a service's endpoints", async () => {
    const { client } = suite;
    const ns = await suite.keystoneNamespace();
    await client.create(KS, placementService(ns, 'placement-x'));
    await client.create(KE, placementEndpoint(ns, 'placement-x'));
    const service = await suite.ready<KeystoneService>(KS, ns, 'placement-x');
    const endpoint = await suite.ready<KeystoneEndpoint>(KE, ns, 'placement-x');
    const serviceID = service.status?.serviceID ?? '';
    const catalog = await catalogOf(serviceID);
    expect(catalog).toHaveLength(2);

    // Another namespace: its KeystoneService of the same name and type is refused, so its endpoint waits.
    const nsB = await suite.keystoneNamespace();
    await client.create(KS, placementService(nsB, 'placement-x'));
    await client.create(
      KE,
      placementEndpoint(nsB, 'placement-x', { internal: 'http://evil:1', public: 'http://evil:2' }),
    );
    await refusedWith(KS, nsB, 'placement-x', 'KeystoneServiceOSServiceReady');
    await waitForObject<KeystoneEndpoint>(
      client,
      KE,
      { namespace: nsB, name: 'placement-x' },
      (o) =>
        (conditionOf(o, 'KeystoneServiceReady')?.message ?? '').includes(
          'is not owned by this KeystoneService',
        ),
      { description: 'mirrors the refusal' },
    );

    // The same namespace: a second KeystoneEndpoint on the same KeystoneService.
    await client.create(KE, {
      ...placementEndpoint(ns, 'placement-x-evil', { internal: 'http://evil:3' }),
      spec: { serviceName: 'placement-x', endpoints: { internal: 'http://evil:3' } },
    });
    const internalId = endpoint.status?.endpointIDs?.internal ?? '';
    const message = `internal endpoint ${internalId} of service "placement-x" is not owned by this KeystoneEndpoint (it belongs to KeystoneEndpoint ${ns}/placement-x)`;
    expect(await refusedWith(KE, ns, 'placement-x-evil', 'KeystoneServiceOSEndpointsReady')).toBe(message);
    await eventOf(ns, 'placement-x-evil', 'NotOwned', message);

    for (const [n, name] of [
      [ns, 'placement-x-evil'],
      [nsB, 'placement-x'],
    ] as const) {
      await client.delete(KE, { namespace: n, name });
      await waitForDeletion(client, KE, { namespace: n, name }, { timeoutMs: 60_000 });
    }
    await client.delete(KS, { namespace: nsB, name: 'placement-x' });
    await waitForDeletion(client, KS, { namespace: nsB, name: 'placement-x' }, { timeoutMs: 60_000 });
    expect(await catalogOf(serviceID)).toEqual(catalog);
    expect(
      isReadyObject(await client.get<KeystoneEndpoint>(KE, { namespace: ns, name: 'placement-x' })),
    ).toBe(true);
    await cleanUp(ns, nsB);
  });

  it('objects made before (as the upstream operator left them) are refused until adopted with the annotation, then owned', async () => {
    const { client, admin } = suite;
    const ns = await suite.keystoneNamespace();
    const project = (await admin.projects.list({ name: 'service', domain_id: 'default' }))[0];
    const legacyService = await admin.services.create({ type: 'legacy', name: 'legacy', enabled: true });
    const legacyUser = await admin.users.create({
      name: 'legacy',
      password: 'old-password',
      domain_id: 'default',
      ...(project ? { default_project_id: project.id } : {}),
      enabled: true,
    });
    const legacyEndpoint = await admin.endpoints.create({
      service_id: legacyService.id,
      interface: 'internal',
      url: 'http://legacy-old:1',
      region_id: 'regionOne',
    });

    await client.create(KS, placementService(ns, 'legacy', { serviceType: 'legacy' }));
    const refusal = await refusedWith(KS, ns, 'legacy', 'KeystoneServiceOSServiceReady');
    expect(refusal).toBe(
      'service "legacy" (type legacy) is not owned by this KeystoneService (no owner; annotate keystone.openstack.org/adopt: "true" to adopt it)',
    );
    expect(await admin.passwordWorks({ username: 'legacy', password: 'old-password' })).toBe(true);

    await annotateAdopt(KS, ns, 'legacy');
    const adopted = await suite.ready<KeystoneService>(KS, ns, 'legacy');
    expect(adopted.status?.serviceID).toBe(legacyService.id);
    expect(adopted.status?.userID).toBe(legacyUser.id);
    const owner = `KeystoneService/${ns}/legacy/${adopted.metadata.uid}`;
    expect((await admin.users.get(legacyUser.id))?.stackops_owner).toBe(owner);
    expect((await admin.services.get(legacyService.id))?.stackops_owner).toBe(owner);
    expect(await admin.passwordWorks({ username: 'legacy', password: PLACEMENT_PASSWORD })).toBe(true);
    await eventOf(ns, 'legacy', 'KeystoneUpdated', `adopted user legacy (${legacyUser.id})`);

    await client.create(KE, placementEndpoint(ns, 'legacy', { internal: 'http://legacy-new:1' }));
    const epMessage = await refusedWith(KE, ns, 'legacy', 'KeystoneServiceOSEndpointsReady');
    expect(epMessage).toContain(`internal endpoint ${legacyEndpoint.id} of service "legacy" is not owned`);
    expect((await admin.endpoints.get(legacyEndpoint.id))?.url).toBe('http://legacy-old:1');
    await annotateAdopt(KE, ns, 'legacy');
    const ep = await suite.ready<KeystoneEndpoint>(KE, ns, 'legacy');
    expect(ep.status?.endpointIDs).toEqual({ internal: legacyEndpoint.id });
    expect(await admin.endpoints.get(legacyEndpoint.id)).toMatchObject({
      url: 'http://legacy-new:1',
      stackops_owner: `KeystoneEndpoint/${ns}/legacy/${ep.metadata.uid}`,
    });

    // Once owned, deleting removes them.
    await client.delete(KE, { namespace: ns, name: 'legacy' });
    await client.delete(KS, { namespace: ns, name: 'legacy' });
    await waitForDeletion(client, KS, { namespace: ns, name: 'legacy' }, { timeoutMs: 60_000 });
    expect(await admin.services.get(legacyService.id)).toBeUndefined();
    expect(await admin.users.get(legacyUser.id)).toBeUndefined();
    await cleanUp(ns);
  });

  it('repairs drift within the resync: a deleted user, a password changed by hand', async () => {
    const { client, admin } = suite;
    const ns = await suite.keystoneNamespace();
    await client.create(KS, placementService(ns, 'drift'));
    await suite.ready<KeystoneService>(KS, ns, 'drift');

    const user = await userNamed('drift');
    await admin.users.delete(user?.id ?? '');
    const recreated = await waitUntil('user re-created', async () => {
      const u = await userNamed('drift');
      return u && u.id !== user?.id ? u : undefined;
    });
    expect(await admin.passwordWorks({ username: 'drift', password: PLACEMENT_PASSWORD })).toBe(true);
    await eventOf(
      ns,
      'drift',
      'KeystoneUpdated',
      `created user drift (${recreated.id}) (${user?.id} was deleted from Keystone)`,
    );

    await admin.users.update(recreated.id, { password: 'changed-by-hand' });
    await waitUntil('password reset to the Secret', () =>
      admin.passwordWorks({ username: 'drift', password: PLACEMENT_PASSWORD }),
    );
    await eventOf(ns, 'drift', 'KeystoneUpdated', /^reset the password of user drift to the Secret's/);

    await cleanUp(ns);
  });

  it('repairs drift within the resync: an overwritten or deleted endpoint; says so when it cannot', async () => {
    const { client, admin } = suite;
    const ns = await suite.keystoneNamespace();
    await client.create(KS, placementService(ns, 'drift-ep'));
    await client.create(KE, placementEndpoint(ns, 'drift-ep'));
    const endpoint = await suite.ready<KeystoneEndpoint>(KE, ns, 'drift-ep');
    const internalUrl = `http://drift-ep-internal.${ns}.svc:8778`;

    const internalId = endpoint.status?.endpointIDs?.internal ?? '';
    await admin.endpoints.update(internalId, { url: 'http://overwritten:1' });
    await waitUntil(
      'endpoint URL restored',
      async () => (await admin.endpoints.get(internalId))?.url === internalUrl,
    );
    await eventOf(
      ns,
      'drift-ep',
      'KeystoneUpdated',
      `updated internal endpoint ${internalId} to ${internalUrl} (it was http://overwritten:1)`,
    );

    await admin.endpoints.delete(internalId);
    const again = await waitForObject<KeystoneEndpoint>(
      client,
      KE,
      { namespace: ns, name: 'drift-ep' },
      (o) => isReadyObject(o) && (o.status?.endpointIDs?.internal ?? internalId) !== internalId,
      { description: 'endpoint re-created' },
    );
    const newId = again.status?.endpointIDs?.internal ?? '';
    expect((await admin.endpoints.get(newId))?.url).toBe(internalUrl);

    // Replaced by hand with an endpoint it does not own: it cannot repair that, and says so.
    await admin.endpoints.delete(newId);
    const serviceID = again.status?.serviceID ?? '';
    const foreign = await admin.endpoints.create({
      service_id: serviceID,
      interface: 'internal',
      url: 'http://by-hand:1',
      region_id: 'regionOne',
    });
    const message = await refusedWith(KE, ns, 'drift-ep', 'KeystoneServiceOSEndpointsReady');
    expect(message).toContain(`internal endpoint ${foreign.id} of service "drift-ep" is not owned`);
    expect((await admin.endpoints.get(foreign.id))?.url).toBe('http://by-hand:1');
    await cleanUp(ns);
  });
});
