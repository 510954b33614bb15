import { Kinds, type KubeObject } from '@stackops/lib-common/client';
import { FakeKubeClient, fakeSecretText } from '@stackops/lib-common/testing';
import { describe, expect, it } from 'vitest';
import {
  convergeKeystone,
  FAKE_NS,
  fakeSecret,
  keystoneCondition,
  keystonePasses,
  seedKeystoneWorld,
} from '../../testing/keystone-api-fake.js';

const NS = FAKE_NS;
const secretKeys = (fake: FakeKubeClient, name: string) =>
  Object.keys(
    fake.peek<KubeObject & { data?: Record<string, string> }>(Kinds.Secret, { namespace: NS, name })?.data ??
      {},
  );

describe('KeystoneAPI fields that read other Secrets (fake API server)', () => {
  it('customConfigSecret: a missing Secret is named in ServiceConfigReady; once there its files reach the config', async () => {
    const fake = new FakeKubeClient();
    seedKeystoneWorld(fake, {
      httpdCustomization: { processNumber: 3, customConfigSecret: 'httpd-overrides' },
    });
    await keystonePasses(fake, 3);
    expect(keystoneCondition(fake, 'ServiceConfigReady')).toMatchObject({
      status: 'False',
      severity: 'Warning',
    });
    expect(keystoneCondition(fake, 'ServiceConfigReady')?.message).toContain(
      'Secret httpd-overrides (spec.httpdCustomization.customConfigSecret) not found',
    );
    fake.seed(Kinds.Secret, fakeSecret('httpd-overrides', { 'timeout.conf': 'TimeOut 300' }));
    await convergeKeystone(fake);
    expect(secretKeys(fake, 'keystone-config-data')).toEqual(
      expect.arrayContaining(['httpd_custom_internal_timeout.conf', 'httpd_custom_public_timeout.conf']),
    );
  });

  it('federatedRealmConfig: a missing key is an error and an Event naming it; then the realm files are mounted', async () => {
    const fake = new FakeKubeClient();
    seedKeystoneWorld(fake, { federatedRealmConfig: 'realms' });
    fake.seed(Kinds.Secret, fakeSecret('realms', { wrong: '{}' }));
    const events = await keystonePasses(fake, 3);
    expect(keystoneCondition(fake, 'ServiceConfigReady')?.message).toContain(
      'key federation-config.json not found in Secret realms (spec.federatedRealmConfig)',
    );
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'Warning', reason: 'FederatedRealmConfig' }),
    );
    await fake.delete(Kinds.Secret, { namespace: NS, name: 'realms' });
    fake.seed(
      Kinds.Secret,
      fakeSecret('realms', {
        'federation-config.json': JSON.stringify({ 'idp.example.com.provider': { issuer: 'x' } }),
      }),
    );
    await convergeKeystone(fake);
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
      seedKeystoneWorld(fake, { preserveJobs });
      await convergeKeystone(fake);
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
    seedKeystoneWorld(fake, {});
    await fake.delete(Kinds.Secret, { namespace: NS, name: 'osp-secret' });
    fake.seed(Kinds.Secret, fakeSecret('osp-secret', { AdminPassword: 'a', DbRootPassword: 'r' }));
    await convergeKeystone(fake);
    expect(keystoneCondition(fake, 'MariaDBAccountReady')).toMatchObject({
      status: 'True',
      message: 'MariaDBAccount creation complete',
    });
    const dbSecret = { namespace: NS, name: 'keystone-db-secret' };
    const account = fake.peek(Kinds.Secret, dbSecret);
    const password = fakeSecretText(fake, dbSecret, 'DatabasePassword');
    expect(password).toMatch(/^[0-9a-f]{32}$/);
    const conf = fakeSecretText(fake, { namespace: NS, name: 'keystone-config-data' }, 'keystone.conf');
    expect(conf).toContain(`mysql+pymysql://keystone:${password}@`);
    await convergeKeystone(fake);
    const again = fake.peek(Kinds.Secret, dbSecret);
    expect(again?.metadata.resourceVersion).toBe(account?.metadata.resourceVersion);
  });
});
