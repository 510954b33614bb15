import { Kinds } from '@stackops/lib-common/client';
import { createSecret, waitForDeletion, waitForObject, waitUntil } from '@stackops/lib-common/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeystoneKinds } from '../src/api/group.js';
import type { KeystoneAPI } from '../src/api/keystone-api.js';
import type { KeystoneService } from '../src/api/keystone-service.js';
import { waitForStatus } from './support/keystone.js';
import {
  conditionOf,
  createExternalKeystoneAPI,
  createOspSecret,
  deleteNamespaceAndWait,
  isReadyObject,
  PLACEMENT_PASSWORD,
  placementService,
  useKeystoneSuite,
} from './support/keystone-server/operator.js';

const KS = KeystoneKinds.KeystoneService;

describe('KeystoneService against a real Keystone (KeystoneAPI in external mode)', () => {
  const suite = useKeystoneSuite({ beforeAll, afterAll });

  /** A namespace with osp-secret and a KeystoneAPI (external mode) pointing at the real Keystone. */
  async function keystoneNamespace(): Promise<string> {
    const ns = await suite.namespace('kss');
    await createOspSecret(suite.client, ns, suite.keystone);
    await createExternalKeystoneAPI(suite.client, ns, suite.keystone);
    return ns;
  }

  /** KeystoneService `name` created Ready in a fresh keystoneNamespace(), and its service's Keystone id. */
  async function readyService(name: string) {
    const ns = await keystoneNamespace();
    await suite.client.create(KS, placementService(ns, name));
    const cr = await suite.ready<KeystoneService>(KS, ns, name);
    return { ns, cr, serviceID: cr.status?.serviceID ?? '' };
  }

  /** KeystoneService `name` once its condition `type` has `status` (the test checks the rest). */
  const serviceWhen = (ns: string, name: string, type: string, status: 'True' | 'False') =>
    waitForStatus<KeystoneService>(suite.client, KS, { namespace: ns, name }, type, status);

  /** Merges `spec` into KeystoneService `name`. */
  const patchService = (ns: string, name: string, spec: object) =>
    suite.client.patch(KS, { namespace: ns, name }, { spec }, 'merge');

  /** KeystoneService `name` once `check` holds (60 s). */
  const serviceWhere = (
    ns: string,
    name: string,
    check: (o: KeystoneService) => boolean,
    description: string,
  ) => waitForObject<KeystoneService>(suite.client, KS, { namespace: ns, name }, check, { description });

  /** Merges plain-text `stringData` into Secret `name` (the API server encodes it). */
  const patchSecret = (ns: string, name: string, stringData: Record<string, string>) =>
    suite.client.patch(Kinds.Secret, { namespace: ns, name }, { stringData }, 'merge');

  const serviceProject = async () =>
    (await suite.admin.projects.list({ name: 'service', domain_id: 'default' }))[0];
  const userNamed = async (name: string) => (await suite.admin.users.list({ name, domain_id: 'default' }))[0];
  const rolesOf = async (userId: string, projectId: string) =>
    (
      await suite.admin.roleAssignments.list({
        'user.id': userId,
        'scope.project.id': projectId,
        include_names: true,
      })
    )
      .map((a) => a.role.name)
      .sort();
  const apiFinalizers = async (ns: string) =>
    (await suite.client.get<KeystoneAPI>(KeystoneKinds.KeystoneAPI, { namespace: ns, name: 'keystone' }))
      ?.metadata.finalizers ?? [];

  it('registers the service, and its user in project service with roles admin and service', async () => {
    const { admin } = suite;
    const { ns, cr, serviceID } = await readyService('placement');
    expect(conditionOf(cr, 'KeystoneAPIReady')?.message).toBe('KeystoneAPI ready');
    expect(conditionOf(cr, 'AdminServiceClientReady')?.message).toBe('Admin client ready');
    expect(conditionOf(cr, 'KeystoneServiceOSServiceReady')?.message).toBe(
      `Keystone Service placement - ${serviceID} ready`,
    );
    expect(conditionOf(cr, 'KeystoneServiceOSUserReady')?.message).toBe(
      'Keystone Service user placement ready',
    );
    expect(conditionOf(cr, 'Ready')?.message).toBe('Setup complete');

    expect(await admin.services.get(serviceID)).toMatchObject({
      type: 'placement',
      name: 'placement',
      description: 'Placement Service',
      enabled: true,
    });
    const project = await serviceProject();
    const user = await userNamed('placement');
    expect(user).toMatchObject({ enabled: true, default_project_id: project?.id });
    expect(await rolesOf(user?.id ?? '', project?.id ?? '')).toEqual(['admin', 'service']);
    expect(await admin.passwordWorks({ username: 'placement', password: PLACEMENT_PASSWORD })).toBe(true);

    // Upstream's finalizer graph, KeystoneService half: its own finalizer, and one named after it on
    // the KeystoneAPI.
    expect(cr.metadata.finalizers).toEqual(['openstack.org/keystoneservice']);
    expect(await apiFinalizers(ns)).toContain('openstack.org/keystoneservice-placement');
    // Ownership (ADR 0012): the status records the IDs, Keystone records the owner on each object.
    expect(cr.status?.userID).toBe(user?.id);
    const owner = `KeystoneService/${ns}/placement/${cr.metadata.uid}`;
    expect(user?.stackops_owner).toBe(owner);
    expect((await admin.services.get(serviceID))?.stackops_owner).toBe(owner);
  });

  it('updates the service in place and the user password when the Secret changes', async () => {
    const { admin } = suite;
    const { ns, serviceID } = await readyService('placement-upd');

    await patchService(ns, 'placement-upd', {
      serviceDescription: 'Placement API',
      enabled: false,
      serviceType: 'placement-v2',
    });
    const updated = await waitUntil('keystone service updated', async () => {
      const s = await admin.services.get(serviceID);
      return s?.description === 'Placement API' && s.enabled === false && s.type === 'placement-v2'
        ? s
        : undefined;
    });
    expect(updated.id).toBe(serviceID);
    expect(await admin.services.list({ name: 'placement-upd' })).toHaveLength(1);

    await patchSecret(ns, 'osp-secret', { PlacementPassword: 'placement-pw-2' });
    await waitUntil('the new password works in keystone', () =>
      admin.passwordWorks({ username: 'placement-upd', password: 'placement-pw-2' }),
    );
    expect(await admin.passwordWorks({ username: 'placement-upd', password: PLACEMENT_PASSWORD })).toBe(
      false,
    );
    const after = await suite.ready<KeystoneService>(KS, ns, 'placement-upd');
    expect(after.status?.serviceID).toBe(serviceID);

    // A renamed service user: the new one gets the roles, the old one is removed.
    const oldUser = await userNamed('placement-upd');
    await patchService(ns, 'placement-upd', { serviceUser: 'placement-new' });
    const renamed = await serviceWhere(
      ns,
      'placement-upd',
      (o) =>
        isReadyObject(o) &&
        conditionOf(o, 'KeystoneServiceOSUserReady')?.message === 'Keystone Service user placement-new ready',
      'user renamed',
    );
    expect(conditionOf(renamed, 'KeystoneServiceOSUserReady')?.message).toBe(
      'Keystone Service user placement-new ready',
    );
    const newUser = await userNamed('placement-new');
    const project = await serviceProject();
    expect(await rolesOf(newUser?.id ?? '', project?.id ?? '')).toEqual(['admin', 'service']);
    expect(await userNamed('placement-upd')).toBeUndefined();
    expect(await admin.users.get(oldUser?.id ?? '')).toBeUndefined();
  });

  it('deletes the service and its user from Keystone, then releases the KeystoneAPI', async () => {
    const { client, admin } = suite;
    const { ns, serviceID } = await readyService('placement-del');
    const user = await userNamed('placement-del');
    expect(user).toBeDefined();

    await client.delete(KS, { namespace: ns, name: 'placement-del' });
    await waitForDeletion(client, KS, { namespace: ns, name: 'placement-del' }, { timeoutMs: 60_000 });
    expect(await admin.services.get(serviceID)).toBeUndefined();
    expect(await userNamed('placement-del')).toBeUndefined();
    expect(await admin.users.get(user?.id ?? '')).toBeUndefined();
    expect(await apiFinalizers(ns)).not.toContain('openstack.org/keystoneservice-placement-del');
  });

  it('waits for its password Secret, names a missing key, and recovers', async () => {
    const { client, admin } = suite;
    const ns = await keystoneNamespace();
    await client.create(KS, placementService(ns, 'placement-pw', { secret: 'placement-secret' }));
    const waiting = await serviceWhen(ns, 'placement-pw', 'KeystoneServiceOSUserReady', 'False');
    expect(conditionOf(waiting, 'KeystoneServiceOSUserReady')).toMatchObject({
      reason: 'Requested',
      severity: 'Info',
      message: 'Keystone Service user not yet ready',
    });
    expect(conditionOf(waiting, 'KeystoneServiceOSServiceReady')?.status).toBe('True');
    expect(conditionOf(waiting, 'Ready')?.status).toBe('False');

    await createSecret(client, ns, 'placement-secret', { Other: 'x' });
    const missingKey = await serviceWhere(
      ns,
      'placement-pw',
      (o) => (conditionOf(o, 'KeystoneServiceOSUserReady')?.message ?? '').includes('PlacementPassword'),
      'key missing',
    );
    expect(conditionOf(missingKey, 'KeystoneServiceOSUserReady')).toMatchObject({
      reason: 'Error',
      severity: 'Warning',
      message: 'Keystone Service user error occured Secret placement-secret has no key PlacementPassword',
    });

    await patchSecret(ns, 'placement-secret', { PlacementPassword: 'from-own-secret' });
    await suite.ready<KeystoneService>(KS, ns, 'placement-pw');
    expect(await admin.passwordWorks({ username: 'placement-pw', password: 'from-own-secret' })).toBe(true);
  });

  it("reports a refused admin login with Keystone's message and recovers when the admin Secret is fixed", async () => {
    const { client, keystone } = suite;
    const ns = await suite.namespace('kss');
    await createOspSecret(client, ns, keystone);
    await patchSecret(ns, 'osp-secret', { AdminPassword: 'not-the-admin-password' });
    await createExternalKeystoneAPI(client, ns, keystone);
    await client.create(KS, placementService(ns, 'placement-login'));
    const refused = await serviceWhen(ns, 'placement-login', 'AdminServiceClientReady', 'False');
    expect(conditionOf(refused, 'AdminServiceClientReady')).toMatchObject({
      reason: 'Error',
      severity: 'Warning',
    });
    const message = conditionOf(refused, 'AdminServiceClientReady')?.message ?? '';
    // No HTTP verb or URL in a condition: Keystone's status and message.
    expect(message).toMatch(/^Admin client error occured keystone 401 Unauthorized: /);
    expect(message).not.toContain('not-the-admin-password');
    expect(refused.status?.serviceID ?? '').toBe('');

    await patchSecret(ns, 'osp-secret', { AdminPassword: keystone.adminPassword });
    await suite.ready<KeystoneService>(KS, ns, 'placement-login');
  });

  it('reports a missing KeystoneAPI and is deleted without Keystone when nothing was registered', async () => {
    const { client, admin } = suite;
    const ns = await suite.namespace('kss');
    await client.create(KS, placementService(ns, 'orphan'));
    const cr = await serviceWhen(ns, 'orphan', 'KeystoneAPIReady', 'False');
    expect(conditionOf(cr, 'KeystoneAPIReady')).toMatchObject({
      reason: 'Error',
      severity: 'Warning',
      message: 'KeystoneAPI not found',
    });
    expect(conditionOf(cr, 'Ready')?.status).toBe('False');
    expect(cr.metadata.finalizers).toEqual(['openstack.org/keystoneservice']);
    await client.delete(KS, { namespace: ns, name: 'orphan' });
    await waitForDeletion(client, KS, { namespace: ns, name: 'orphan' }, { timeoutMs: 60_000 });
    expect(await admin.services.list({ name: 'orphan' })).toEqual([]);
  });

  it('only drops finalizers when the KeystoneAPI itself is being deleted (no Keystone calls)', async () => {
    const { client, admin } = suite;
    const { ns, serviceID } = await readyService('placement-fin');

    await client.delete(KeystoneKinds.KeystoneAPI, { namespace: ns, name: 'keystone' });
    // The KeystoneAPI waits for the service's finalizer.
    await waitForObject<KeystoneAPI>(
      client,
      KeystoneKinds.KeystoneAPI,
      { namespace: ns, name: 'keystone' },
      (o) => Boolean(o.metadata.deletionTimestamp),
      { description: 'being deleted' },
    );
    expect(await apiFinalizers(ns)).toContain('openstack.org/keystoneservice-placement-fin');

    await client.delete(KS, { namespace: ns, name: 'placement-fin' });
    await waitForDeletion(client, KS, { namespace: ns, name: 'placement-fin' }, { timeoutMs: 60_000 });
    await waitForDeletion(
      client,
      KeystoneKinds.KeystoneAPI,
      { namespace: ns, name: 'keystone' },
      { timeoutMs: 60_000 },
    );
    // Upstream's rule: nothing is unregistered when keystone itself goes away.
    expect(await admin.services.get(serviceID)).toBeDefined();
    await admin.services.delete(serviceID);
  });

  it('a namespace deletion with a KeystoneAPI and a KeystoneService completes', async () => {
    const { client } = suite;
    const { ns } = await readyService('placement-ns');
    await deleteNamespaceAndWait(client, ns, async () => ({
      api: await apiFinalizers(ns),
      service: (await client.get(KS, { namespace: ns, name: 'placement-ns' }))?.metadata.finalizers,
    }));
  });
});
