import { KeystoneKinds } from '@stackops/keystone-operator';
import { Kinds, type KubeObject } from '@stackops/lib-common/client';
import type { Manager } from '@stackops/lib-common/runtime';
import {
  base64,
  FakeKubeClient,
  fakeConditionOf,
  settledReconcileCount,
  startFakeManager,
  waitUntil,
} from '@stackops/lib-common/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { type PlacementAPI, PlacementAPIKind } from '../api/kinds.js';
import { defaultsFromEnv } from '../config/defaults.js';
import { registerPlacementApiController } from './placement-api-controller.js';

const NS = 'openstack';
const fast = { timeoutMs: 5_000, intervalMs: 10 };

const conditionOf = fakeConditionOf(PlacementAPIKind, { namespace: NS, name: 'placement' });

const keystoneStatus = (region: string, readyCount = 1) => ({
  apiEndpoints: { internal: 'http://keystone-internal:5000', public: 'http://keystone-public:5000' },
  region,
  readyCount,
  conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z' }],
});

describe('PlacementAPI controller registration (a real manager on a fake API server)', () => {
  let manager: Manager | undefined;
  afterEach(async () => manager?.stop());

  it('is woken by its Secret, its database Service and KeystoneAPI endpoint or region changes only', async () => {
    const fake = new FakeKubeClient();
    fake.seed(PlacementAPIKind, {
      metadata: { name: 'placement', namespace: NS },
      spec: {
        databaseInstance: 'mariadb',
        secret: 'osp-secret',
        databaseAccount: 'placement',
        passwordSelectors: { service: 'PlacementPassword', database: 'PlacementDatabasePassword' },
      },
    } as PlacementAPI);
    manager = await startFakeManager(fake, (m) => registerPlacementApiController(m, defaultsFromEnv({})));
    await waitUntil('InputReady False', () => conditionOf(fake, 'InputReady')?.status === 'False', fast);

    const data = {
      PlacementPassword: base64('a'),
      PlacementDatabasePassword: base64('b'),
      DbRootPassword: base64('c'),
    };
    await fake.create(Kinds.Secret, { metadata: { name: 'osp-secret', namespace: NS }, data } as KubeObject);
    await waitUntil(
      'DBReady waits for mariadb',
      () => conditionOf(fake, 'DBReady')?.message?.includes('mariadb'),
      fast,
    );
    await fake.create(Kinds.Service, { metadata: { name: 'mariadb', namespace: NS } } as KubeObject);
    const job = { namespace: NS, name: 'placement-db-create' };
    await waitUntil('the db-create Job', () => fake.peek(Kinds.Job, job), fast);
    await fake.patch(Kinds.Job, job, { status: { succeeded: 1 } }, 'merge', { subresource: 'status' });
    await waitUntil(
      'ServiceConfigReady names the missing KeystoneAPI',
      () => conditionOf(fake, 'ServiceConfigReady')?.message?.includes('no KeystoneAPI'),
      fast,
    );

    const keystone = { namespace: NS, name: 'keystone' };
    await fake.create(KeystoneKinds.KeystoneAPI, { metadata: keystone, spec: { secret: 's' } } as KubeObject);
    await fake.patch(KeystoneKinds.KeystoneAPI, keystone, { status: keystoneStatus('one') }, 'merge', {
      subresource: 'status',
    });
    await waitUntil(
      'the config rendered',
      () => fake.peek(Kinds.Secret, { namespace: NS, name: 'placement-config-data' }),
      fast,
    );

    // A KeystoneAPI status write that changes neither endpoints nor region does not wake it.
    const before = await settledReconcileCount(manager, 'placementapi');
    await fake.patch(KeystoneKinds.KeystoneAPI, keystone, { status: keystoneStatus('one', 3) }, 'merge', {
      subresource: 'status',
    });
    expect(await settledReconcileCount(manager, 'placementapi')).toBe(before);
    await fake.patch(KeystoneKinds.KeystoneAPI, keystone, { status: keystoneStatus('two') }, 'merge', {
      subresource: 'status',
    });
    await waitUntil(
      'placement.conf in region two',
      () => {
        const s = fake.peek<KubeObject & { data: Record<string, string> }>(Kinds.Secret, {
          namespace: NS,
          name: 'placement-config-data',
        });
        return Buffer.from(s?.data['placement.conf'] ?? '', 'base64')
          .toString()
          .includes('region_name = two');
      },
      fast,
    );
  });
});
