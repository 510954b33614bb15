import { FakeKubeClient, fakeConditionOf, reconcileOnce } from '@stackops/lib-common/testing';
import { describe, expect, it } from 'vitest';
import { KeystoneKinds } from '../../api/group.js';
import type { KeystoneAPI } from '../../api/keystone-api.js';
import type { KeystoneService } from '../../api/keystone-service.js';
import { IdentityClientPool } from '../../identity/client-pool.js';
import { keystoneServiceReconciler } from './keystone-service-reconciler.js';

// These passes never reach Keystone: a request to this address would fail the test loudly.
const NO_KEYSTONE = 'http://127.0.0.1:9/v3';
const NS = 'ns';
const ref = { namespace: NS, name: 'placement' };

const keystoneAPI = (
  opts: { ready?: boolean; finalizers?: string[]; deleting?: boolean } = {},
): KeystoneAPI =>
  ({
    metadata: {
      name: 'keystone',
      namespace: NS,
      ...(opts.finalizers ? { finalizers: opts.finalizers } : {}),
    },
    spec: { secret: 'osp-secret' },
    status: {
      apiEndpoints: { internal: NO_KEYSTONE, public: NO_KEYSTONE },
      conditions: [
        { type: 'Ready', status: opts.ready ? 'True' : 'False', lastTransitionTime: '2026-01-01T00:00:00Z' },
      ],
    },
  }) as KeystoneAPI;

const keystoneService = (
  extra: Partial<KeystoneService['metadata']> = {},
  status?: object,
): KeystoneService =>
  ({
    metadata: { name: 'placement', namespace: NS, ...extra },
    spec: {
      serviceType: 'placement',
      serviceName: 'placement',
      enabled: true,
      serviceUser: 'placement',
      secret: 'osp-secret',
      passwordSelector: 'PlacementPassword',
    },
    ...(status ? { status } : {}),
  }) as KeystoneService;

const reconcile = (fake: FakeKubeClient) =>
  reconcileOnce<KeystoneService>(
    fake,
    KeystoneKinds.KeystoneService,
    ref,
    keystoneServiceReconciler(new IdentityClientPool()),
  );

const conditionOf = fakeConditionOf(KeystoneKinds.KeystoneService, ref);
const apiFinalizers = (fake: FakeKubeClient) =>
  fake.peek(KeystoneKinds.KeystoneAPI, { namespace: NS, name: 'keystone' })?.metadata.finalizers;

/** A fake with a Ready KeystoneAPI that carries this service's finalizer, as after a registration. */
function heldKeystoneAPI(): FakeKubeClient {
  const fake = new FakeKubeClient();
  const held = 'openstack.org/keystoneservice-placement';
  fake.seed(
    KeystoneKinds.KeystoneAPI,
    keystoneAPI({ ready: true, finalizers: ['openstack.org/keystoneapi', held] }),
  );
  return fake;
}

/** Deletes the KeystoneService (its finalizer holds it) and runs one pass. */
async function deleteService(fake: FakeKubeClient): Promise<void> {
  await fake.delete(KeystoneKinds.KeystoneService, ref);
  await reconcile(fake);
}

describe('KeystoneService reconciler (gates on a fake API server)', () => {
  it('without a KeystoneAPI: its own finalizer, KeystoneAPIReady False "KeystoneAPI not found", again in 5 s', async () => {
    const fake = new FakeKubeClient();
    fake.seed(KeystoneKinds.KeystoneService, keystoneService());
    const { result } = await reconcile(fake);
    expect(result).toEqual({ requeueAfterMs: 5_000 });
    expect(fake.peek(KeystoneKinds.KeystoneService, ref)?.metadata.finalizers).toEqual([
      'openstack.org/keystoneservice',
    ]);
    expect(conditionOf(fake, 'KeystoneAPIReady')).toMatchObject({
      status: 'False',
      severity: 'Warning',
      message: 'KeystoneAPI not found',
    });
    expect(conditionOf(fake, 'KeystoneServiceOSServiceReady')).toMatchObject({ status: 'Unknown' });
  });

  it('a KeystoneAPI not Ready yet is a wait, and nothing is put on it', async () => {
    const fake = new FakeKubeClient();
    fake.seed(KeystoneKinds.KeystoneService, keystoneService());
    fake.seed(KeystoneKinds.KeystoneAPI, keystoneAPI());
    const { result } = await reconcile(fake);
    expect(result).toEqual({ requeueAfterMs: 5_000 });
    expect(conditionOf(fake, 'KeystoneAPIReady')).toMatchObject({
      status: 'False',
      severity: 'Info',
      message: 'KeystoneAPI not yet ready',
    });
    expect(apiFinalizers(fake)).toBeUndefined();
  });

  it('a Ready KeystoneAPI without its admin Secret: AdminServiceClientReady waits 10 s', async () => {
    const fake = new FakeKubeClient();
    fake.seed(KeystoneKinds.KeystoneService, keystoneService());
    fake.seed(KeystoneKinds.KeystoneAPI, keystoneAPI({ ready: true }));
    const { result } = await reconcile(fake);
    expect(result).toEqual({ requeueAfterMs: 10_000 });
    expect(conditionOf(fake, 'KeystoneAPIReady')?.status).toBe('True');
    expect(conditionOf(fake, 'AdminServiceClientReady')).toMatchObject({
      status: 'False',
      message: 'Admin client not yet ready',
    });
  });

  it('deletion with nothing registered releases the KeystoneAPI and itself without calling Keystone', async () => {
    const fake = heldKeystoneAPI();
    fake.seed(
      KeystoneKinds.KeystoneService,
      keystoneService({ finalizers: ['openstack.org/keystoneservice'] }),
    );
    await deleteService(fake);
    expect(fake.peek(KeystoneKinds.KeystoneService, ref)).toBeUndefined();
    expect(apiFinalizers(fake)).toEqual(['openstack.org/keystoneapi']);
  });

  it('deletion while the KeystoneAPI goes too only drops finalizers, even with a registered service', async () => {
    const fake = heldKeystoneAPI();
    await fake.delete(KeystoneKinds.KeystoneAPI, { namespace: NS, name: 'keystone' });
    fake.seed(
      KeystoneKinds.KeystoneService,
      keystoneService({ finalizers: ['openstack.org/keystoneservice'] }, { serviceID: 'abc' }),
    );
    await deleteService(fake);
    expect(fake.peek(KeystoneKinds.KeystoneService, ref)).toBeUndefined();
    expect(apiFinalizers(fake)).toEqual(['openstack.org/keystoneapi']);
  });
});
