import { FakeKubeClient, reconcileOnce } from '@stackops/lib-common/testing';
import { describe, expect, it } from 'vitest';
import { KeystoneKinds } from '../../api/group.js';
import type { KeystoneEndpoint } from '../../api/keystone-endpoint.js';
import { IdentityClientPool } from '../../identity/client-pool.js';
import { keystoneEndpointReconciler } from './keystone-endpoint-reconciler.js';

const NS = 'ns';
const ref = { namespace: NS, name: 'placement' };
const HELD = 'openstack.org/keystoneendpoint-placement';

const keystoneEndpoint = (finalizers?: string[], endpointIDs?: Record<string, string>): KeystoneEndpoint =>
  ({
    metadata: { name: 'placement', namespace: NS, ...(finalizers ? { finalizers } : {}) },
    spec: { serviceName: 'placement', endpoints: { internal: 'http://placement-internal:8778' } },
    ...(endpointIDs ? { status: { endpointIDs } } : {}),
  }) as KeystoneEndpoint;

const reconcile = (fake: FakeKubeClient) =>
  reconcileOnce<KeystoneEndpoint>(
    fake,
    KeystoneKinds.KeystoneEndpoint,
    ref,
    keystoneEndpointReconciler(new IdentityClientPool()),
  );

describe('KeystoneEndpoint reconciler (gates on a fake API server)', () => {
  it('waits for a KeystoneAPI, with its own finalizer in place and KeystoneServiceReady still Init', async () => {
    const fake = new FakeKubeClient();
    fake.seed(KeystoneKinds.KeystoneEndpoint, keystoneEndpoint());
    expect((await reconcile(fake)).result).toEqual({ requeueAfterMs: 5_000 });
    const ep = fake.peek<KeystoneEndpoint>(KeystoneKinds.KeystoneEndpoint, ref);
    expect(ep?.metadata.finalizers).toEqual(['openstack.org/keystoneendpoint']);
    const conditions = Object.fromEntries((ep?.status?.conditions ?? []).map((c) => [c.type, c.status]));
    expect(conditions).toEqual({
      Ready: 'False',
      KeystoneAPIReady: 'False',
      AdminServiceClientReady: 'Unknown',
      KeystoneServiceReady: 'Unknown',
      KeystoneServiceOSEndpointsReady: 'Unknown',
    });
  });

  it('deleted after its KeystoneAPI went: releases the KeystoneService, then itself, without Keystone', async () => {
    const fake = new FakeKubeClient();
    fake.seed(KeystoneKinds.KeystoneService, {
      metadata: { name: 'placement', namespace: NS, finalizers: ['openstack.org/keystoneservice', HELD] },
    });
    fake.seed(
      KeystoneKinds.KeystoneEndpoint,
      keystoneEndpoint(['openstack.org/keystoneendpoint'], { internal: 'ep-1' }),
    );
    await fake.delete(KeystoneKinds.KeystoneEndpoint, ref);
    await reconcile(fake);
    expect(fake.peek(KeystoneKinds.KeystoneEndpoint, ref)).toBeUndefined();
    expect(fake.peek(KeystoneKinds.KeystoneService, ref)?.metadata.finalizers).toEqual([
      'openstack.org/keystoneservice',
    ]);
  });
});
