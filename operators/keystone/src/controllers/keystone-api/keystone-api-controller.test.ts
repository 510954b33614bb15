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
import { KeystoneKinds } from '../../api/group.js';
import type { KeystoneAPI } from '../../api/keystone-api.js';
import { defaultsFromEnv } from '../../config/defaults.js';
import { registerKeystoneApiController } from './keystone-api-controller.js';

const NS = 'openstack';
const fast = { timeoutMs: 5_000, intervalMs: 10 };

const conditionOf = fakeConditionOf(KeystoneKinds.KeystoneAPI, { namespace: NS, name: 'keystone' });

describe('KeystoneAPI controller registration (a real manager on a fake API server)', () => {
  let manager: Manager | undefined;
  afterEach(async () => manager?.stop());

  it('is woken by the Secret and the database Service its spec names, not by others', async () => {
    const fake = new FakeKubeClient();
    fake.seed(KeystoneKinds.KeystoneAPI, {
      metadata: { name: 'keystone', namespace: NS },
      spec: { secret: 'osp-secret', databaseInstance: 'mariadb' },
    } as KeystoneAPI);
    manager = await startFakeManager(fake, (m) => registerKeystoneApiController(m, defaultsFromEnv({})));
    await waitUntil('InputReady False', () => conditionOf(fake, 'InputReady')?.status === 'False', fast);

    const before = await settledReconcileCount(manager, 'keystoneapi');
    await fake.create(Kinds.Secret, { metadata: { name: 'unrelated', namespace: NS } } as KubeObject);
    await fake.create(Kinds.Service, { metadata: { name: 'openstack', namespace: NS } } as KubeObject);
    expect(await settledReconcileCount(manager, 'keystoneapi')).toBe(before);

    const data = {
      AdminPassword: base64('a'),
      KeystoneDatabasePassword: base64('b'),
      DbRootPassword: base64('c'),
    };
    await fake.create(Kinds.Secret, { metadata: { name: 'osp-secret', namespace: NS }, data } as KubeObject);
    await waitUntil('InputReady True', () => conditionOf(fake, 'InputReady')?.status === 'True', fast);
    expect(conditionOf(fake, 'DBReady')?.message).toContain('mariadb');

    await fake.create(Kinds.Service, { metadata: { name: 'mariadb', namespace: NS } } as KubeObject);
    await waitUntil(
      'the db-create Job',
      () => fake.peek(Kinds.Job, { namespace: NS, name: 'keystone-db-create' }),
      fast,
    );
  });

  it('is woken by the TLS Secrets it waits for (TLSInputReady recovers without a recheck)', async () => {
    const fake = new FakeKubeClient();
    const data = {
      AdminPassword: base64('a'),
      KeystoneDatabasePassword: base64('b'),
      DbRootPassword: base64('c'),
    };
    fake.seed(Kinds.Secret, { metadata: { name: 'osp-secret', namespace: NS }, data } as KubeObject);
    fake.seed(Kinds.Service, { metadata: { name: 'openstack', namespace: NS } } as KubeObject);
    fake.seed(KeystoneKinds.KeystoneAPI, {
      metadata: { name: 'keystone', namespace: NS },
      // external mode: no Jobs to wait for before the TLS check (the fake runs no kube-controller-manager)
      spec: {
        secret: 'osp-secret',
        externalKeystoneAPI: true,
        override: {
          service: {
            internal: { endpointURL: 'https://keystone-internal.example' },
            public: { endpointURL: 'https://keystone.example' },
          },
        },
        tls: { caBundleSecretName: 'combined-ca-bundle' },
      },
    } as KeystoneAPI);
    manager = await startFakeManager(fake, (m) => registerKeystoneApiController(m, defaultsFromEnv({})));
    await waitUntil(
      'TLSInputReady naming the CA bundle',
      () => conditionOf(fake, 'TLSInputReady')?.message === 'TLSInput is missing: combined-ca-bundle',
      fast,
    );
    await fake.create(Kinds.Secret, {
      metadata: { name: 'combined-ca-bundle', namespace: NS },
      data: { 'tls-ca-bundle.pem': base64('CA') },
    } as KubeObject);
    // well before the 10 s recheck: the Secret's watch event brought the reconcile
    await waitUntil('TLSInputReady True', () => conditionOf(fake, 'TLSInputReady')?.status === 'True', {
      timeoutMs: 3_000,
      intervalMs: 10,
    });
  });
});
