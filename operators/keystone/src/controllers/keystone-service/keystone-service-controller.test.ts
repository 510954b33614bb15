import type { KubeObject } from '@stackops/lib-common/client';
import type { Manager } from '@stackops/lib-common/runtime';
import { FakeKubeClient, fakeConditionOf, startFakeManager, waitUntil } from '@stackops/lib-common/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { KeystoneKinds } from '../../api/group.js';
import { IdentityClientPool } from '../../identity/client-pool.js';
import { registerKeystoneServiceController } from './keystone-service-controller.js';

const NS = 'ns';
const fast = { timeoutMs: 5_000, intervalMs: 10 };
const api = { namespace: NS, name: 'keystone' };
const readiness = (status: string) => ({
  status: {
    apiEndpoints: { internal: 'http://127.0.0.1:9/v3' },
    conditions: [{ type: 'Ready', status, lastTransitionTime: '2026-01-01T00:00:00Z' }],
  },
});

const conditionOf = fakeConditionOf(KeystoneKinds.KeystoneService, { namespace: NS, name: 'placement' });

describe('KeystoneService controller registration (a real manager on a fake API server)', () => {
  let manager: Manager | undefined;
  afterEach(async () => manager?.stop());

  it("is woken by the namespace's KeystoneAPI becoming Ready", async () => {
    const fake = new FakeKubeClient();
    fake.seed(KeystoneKinds.KeystoneAPI, { metadata: api, spec: { secret: 'osp-secret' } } as KubeObject);
    await fake.patch(KeystoneKinds.KeystoneAPI, api, readiness('False'), 'merge', { subresource: 'status' });
    fake.seed(KeystoneKinds.KeystoneService, {
      metadata: { name: 'placement', namespace: NS },
      spec: { serviceType: 'placement', serviceName: 'placement', serviceUser: 'placement', secret: 's' },
    } as KubeObject);
    manager = await startFakeManager(fake, (m) =>
      registerKeystoneServiceController(m, { pool: new IdentityClientPool() }),
    );
    await waitUntil(
      'KeystoneAPI not yet ready',
      () => conditionOf(fake, 'KeystoneAPIReady')?.status === 'False',
      fast,
    );
    // Sooner than the 5 s recheck: the KeystoneAPI's Ready flip is watched.
    await fake.patch(KeystoneKinds.KeystoneAPI, api, readiness('True'), 'merge', { subresource: 'status' });
    await waitUntil('KeystoneAPIReady True', () => conditionOf(fake, 'KeystoneAPIReady')?.status === 'True', {
      timeoutMs: 3_000,
      intervalMs: 10,
    });
    expect(conditionOf(fake, 'AdminServiceClientReady')?.message).toBe('Admin client not yet ready');
  });
});
