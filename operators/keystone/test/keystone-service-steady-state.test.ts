import { Kinds } from '@stackops/lib-common/client';
import { waitUntil } from '@stackops/lib-common/testing';
import { describe, expect, it } from 'vitest';
import { KeystoneKinds } from '../src/api/group.js';
import type { KeystoneAPI } from '../src/api/keystone-api.js';
import type { KeystoneEndpoint } from '../src/api/keystone-endpoint.js';
import type { KeystoneService } from '../src/api/keystone-service.js';
import { keystoneEndpointReconciler } from '../src/controllers/keystone-endpoint/keystone-endpoint-reconciler.js';
import { keystoneServiceReconciler } from '../src/controllers/keystone-service/keystone-service-reconciler.js';
import { IdentityClientPool } from '../src/identity/client-pool.js';
import { isReadyObject, KE, KS, registrationSuite } from './support/catalog.js';
import { countingWrites, reconcileWith } from './support/harness.js';
import { placementEndpoint, placementService } from './support/keystone-server/operator.js';

describe('KeystoneService and KeystoneEndpoint steady state', () => {
  const suite = registrationSuite('kst');

  it('a reconcile with unchanged inputs writes nothing to Kubernetes or Keystone', async () => {
    const { client, operator } = suite;
    const ns = await suite.keystoneNamespace();
    await client.create(KS, placementService(ns, 'placement'));
    await client.create(KE, placementEndpoint(ns, 'placement'));
    await suite.ready<KeystoneEndpoint>(KE, ns, 'placement');
    const cache = operator.manager.cache;
    // The operator's cache has caught up with the last status and finalizer writes.
    const [service, endpoint] = await waitUntil('cache holds the Ready objects', async () => {
      const s = cache.get<KeystoneService>(KS, { namespace: ns, name: 'placement' });
      const e = cache.get<KeystoneEndpoint>(KE, { namespace: ns, name: 'placement' });
      const settled =
        isReadyObject(s) &&
        isReadyObject(e) &&
        (s?.metadata.finalizers ?? []).includes('openstack.org/keystoneendpoint-placement') &&
        (
          cache.get<KeystoneAPI>(KeystoneKinds.KeystoneAPI, { namespace: ns, name: 'keystone' })?.metadata
            .finalizers ?? []
        ).length === 3;
      return settled && s && e ? ([s, e] as const) : undefined;
    });

    const counting = countingWrites(client);
    const pool = new IdentityClientPool();
    // Each controller's own reader: the Secrets it reads are watched by name, in no shared cache.
    const onService = await reconcileWith(keystoneServiceReconciler(pool), service, {
      client: counting.client,
      cache: operator.readerOf('keystoneservice'),
    });
    const onEndpoint = await reconcileWith(keystoneEndpointReconciler(pool), endpoint, {
      client: counting.client,
      cache: operator.readerOf('keystoneendpoint'),
    });
    // Nothing written, nothing announced; both come back after the resync period to look for drift.
    expect(onService).toEqual({ result: { requeueAfterMs: 300_000 }, events: [] });
    expect(onEndpoint).toEqual({ result: { requeueAfterMs: 300_000 }, events: [] });
    expect(counting.writes).toEqual([]);
    // The counter does see writes made through the same client.
    await counting.client.patch(
      Kinds.Secret,
      { namespace: ns, name: 'osp-secret' },
      { metadata: { labels: { seen: 'yes' } } },
      'merge',
    );
    expect(counting.writes).toEqual(['patch Secret']);
  });
});
