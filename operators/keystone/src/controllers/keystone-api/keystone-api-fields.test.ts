import { Kinds, type KubeObject } from '@stackops/lib-common/client';
import { FakeKubeClient, reconcileOnce, simulateControllerManager } from '@stackops/lib-common/testing';
import { describe, expect, it } from 'vitest';
import { KeystoneKinds } from '../../api/group.js';
import type { KeystoneAPI } from '../../api/keystone-api.js';
import { defaultsFromEnv } from '../../config/defaults.js';
import { memcachedService } from '../../testing/memcached-service.js';
import { keystoneApiReconciler } from './keystone-api-reconciler.js';

const NS = 'openstack';
const ref = { namespace: NS, name: 'keystone' };
const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
const secret = (name: string, data: Record<string, string>): KubeObject =>
  ({
    metadata: { name, namespace: NS },
    data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, b64(v)])),
  }) as KubeObject;

function seed(fake: FakeKubeClient, spec: Partial<KeystoneAPI['spec']>) {
  fake.seed(KeystoneKinds.KeystoneAPI, {
    apiVersion: 'keystone.openstack.org/v1beta1',
    kind: 'KeystoneAPI',
    metadata: { name: 'keystone', namespace: NS },
    spec: { secret: 'osp-secret', ...spec },
  });
  fake.seed(
    Kinds.Secret,
    secret('osp-secret', { AdminPassword: 'a', KeystoneDatabasePassword: 'd', DbRootPassword: 'r' }),
  );
  fake.seed(Kinds.Service, {
    metadata: { name: 'openstack', namespace: NS },
    spec: { ports: [{ port: 3306 }] },
  } as KubeObject);
  fake.seed(Kinds.Service, memcachedService(NS));
}
const cond = (fake: FakeKubeClient, type: string) =>
  fake.peek<KeystoneAPI>(KeystoneKinds.KeystoneAPI, ref)?.status?.conditions?.find((c) => c.type === type);
const reconcile = (fake: FakeKubeClient) =>
  reconcileOnce<KeystoneAPI>(
    fake,
    KeystoneKinds.KeystoneAPI,
    ref,
    keystoneApiReconciler(defaultsFromEnv({})),
  );
async function converge(fake: FakeKubeClient, passes = 14) {
  for (let i = 0; i < passes; i++) {
    await reconcile(fake);
    if (cond(fake, 'Ready')?.status === 'True') return;
    await simulateControllerManager(fake);
  }
  throw new Error(`not Ready: ${JSON.stringify(cond(fake, 'Ready'))}`);
}
const secretKeys = (fake: FakeKubeClient, name: string) =>
  Object.keys(
    fake.peek<KubeObject & { data?: Record<string, string> }>(Kinds.Secret, { namespace: NS, name })?.data ??
      {},
  );

describe('KeystoneAPI fields that read other Secrets (fake API server)', () => {
  it('customConfigSecret: a missing Secret is named in ServiceConfigReady; once there its files reach the config', async () => {
    const fake = new FakeKubeClient();
    seed(fake, { httpdCustomization: { processNumber: 3, customConfigSecret: 'httpd-overrides' } });
    for (let i = 0; i < 3; i++) {
      await reconcile(fake);
      await simulateControllerManager(fake);
    }
    expect(cond(fake, 'ServiceConfigReady')).toMatchObject({
      status: 'False',
      severity: 'Warning',
    });
    expect(cond(fake, 'ServiceConfigReady')?.message).toContain(
      'Secret httpd-overrides (spec.httpdCustomization.customConfigSecret) not found',
    );
    fake.seed(Kinds.Secret, secret('httpd-overrides', { 'timeout.conf': 'TimeOut 300' }));
    await converge(fake);
    expect(secretKeys(fake, 'keystone-config-data')).toEqual(
      expect.arrayContaining(['httpd_custom_internal_timeout.conf', 'httpd_custom_public_timeout.conf']),
    );
  });

  it('federatedRealmConfig: a missing key is an error and an Event naming it; then the realm files are mounted', async () => {
    const fake = new FakeKubeClient();
    seed(fake, { federatedRealmConfig: 'realms' });
    fake.seed(Kinds.Secret, secret('realms', { wrong: '{}' }));
    const events: unknown[] = [];
    for (let i = 0; i < 3; i++) {
      events.push(...(await reconcile(fake)).events);
      await simulateControllerManager(fake);
    }
    expect(cond(fake, 'ServiceConfigReady')?.message).toContain(
      'key federation-config.json not found in Secret realms (spec.federatedRealmConfig)',
    );
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'Warning', reason: 'FederatedRealmConfig' }),
    );
    await fake.delete(Kinds.Secret, { namespace: NS, name: 'realms' });
    fake.seed(
      Kinds.Secret,
      secret('realms', {
        'federation-config.json': JSON.stringify({ 'idp.example.com.provider': { issuer: 'x' } }),
      }),
    );
    await converge(fake);
    expect(secretKeys(fake, 'keystone-multirealm-federation-secret').sort()).toEqual([
      '0',
      '_filenames.json',
    ]);
    const d = JSON.stringify(fake.peek(Kinds.Deployment, { namespace: NS, name: 'keystone' }));
    expect(d).toContain('/var/lib/config-data/default/multirealm-federation/idp.example.com.provider');
  });

  it('preserveJobs keeps the Jobs (no TTL); without it they expire 600 s after finishing', async () => {
    const ttls = async (preserveJobs: boolean) => {
      const fake = new FakeKubeClient();
      seed(fake, { preserveJobs });
      await converge(fake);
      return fake
        .all(Kinds.Job)
        .map(
          (j) =>
            (j as KubeObject & { spec?: { ttlSecondsAfterFinished?: number } }).spec?.ttlSecondsAfterFinished,
        );
    };
    expect(await ttls(true)).toEqual([undefined, undefined, undefined]);
    expect(await ttls(false)).toEqual([600, 600, 600]);
  });
});

describe("install_yamls' osp-secret as it is today (no KeystoneDatabasePassword)", () => {
  it('generates the account password once into keystone-db-secret and connects with it', async () => {
    const fake = new FakeKubeClient();
    seed(fake, {});
    await fake.delete(Kinds.Secret, { namespace: NS, name: 'osp-secret' });
    fake.seed(Kinds.Secret, secret('osp-secret', { AdminPassword: 'a', DbRootPassword: 'r' }));
    await converge(fake);
    expect(cond(fake, 'MariaDBAccountReady')).toMatchObject({
      status: 'True',
      message: 'MariaDBAccount creation complete',
    });
    const account = fake.peek<
      KubeObject & { stringData?: Record<string, string>; data?: Record<string, string> }
    >(Kinds.Secret, { namespace: NS, name: 'keystone-db-secret' });
    const password =
      account?.stringData?.['DatabasePassword'] ??
      Buffer.from(account?.data?.['DatabasePassword'] ?? '', 'base64').toString();
    expect(password).toMatch(/^[0-9a-f]{32}$/);
    const config = fake.peek<
      KubeObject & { data?: Record<string, string>; stringData?: Record<string, string> }
    >(Kinds.Secret, { namespace: NS, name: 'keystone-config-data' });
    const conf =
      config?.stringData?.['keystone.conf'] ??
      Buffer.from(config?.data?.['keystone.conf'] ?? '', 'base64').toString();
    expect(conf).toContain(`mysql+pymysql://keystone:${password}@`);
    await converge(fake);
    const again = fake.peek<KubeObject & { metadata: { resourceVersion?: string } }>(Kinds.Secret, {
      namespace: NS,
      name: 'keystone-db-secret',
    });
    expect(again?.metadata.resourceVersion).toBe(account?.metadata.resourceVersion);
  });
});
