import { Kinds, type KubeObject } from '@stackops/lib-common/client';
import { FakeKubeClient, setSecretData } from '@stackops/lib-common/testing';
import { describe, expect, it } from 'vitest';
import { KeystoneKinds } from '../../api/group.js';
import type { KeystoneAPI } from '../../api/keystone-api.js';
import {
  convergeKeystone,
  FAKE_KEYSTONE,
  FAKE_NS,
  fakeSecret,
  keystoneCondition,
  keystonePasses,
  reconcileKeystone,
  seedKeystoneWorld,
} from '../../testing/keystone-api-fake.js';

const NS = FAKE_NS;
const certSecret = (name: string, crt = 'CRT') =>
  fakeSecret(name, { 'tls.crt': crt, 'tls.key': 'KEY' }, 'kubernetes.io/tls');

const TLS = {
  api: {
    internal: { secretName: 'cert-keystone-internal-svc' },
    public: { secretName: 'cert-keystone-public-svc' },
  },
  caBundleSecretName: 'combined-ca-bundle',
};

const seed = (fake: FakeKubeClient) => seedKeystoneWorld(fake, { tls: TLS });

const configHash = (fake: FakeKubeClient) => {
  const d = fake.peek<
    KubeObject & {
      spec: { template: { spec: { containers: { env: { name: string; value: string }[] }[] } } };
    }
  >(Kinds.Deployment, { namespace: NS, name: 'keystone' });
  return d?.spec.template.spec.containers[0]?.env.find((e) => e.name === 'CONFIG_HASH')?.value;
};

describe('KeystoneAPI pod-level TLS (fake API server)', () => {
  it('waits in TLSInputReady naming the missing Secrets, recovers when they appear, publishes https', async () => {
    const fake = new FakeKubeClient();
    seed(fake);
    await keystonePasses(fake, 4);
    expect(keystoneCondition(fake, 'TLSInputReady')).toMatchObject({
      status: 'False',
      severity: 'Warning',
      message: 'TLSInput is missing: combined-ca-bundle',
    });
    expect(fake.peek(Kinds.Deployment, { namespace: NS, name: 'keystone' })).toBeUndefined();

    fake.seed(Kinds.Secret, fakeSecret('combined-ca-bundle', { 'tls-ca-bundle.pem': 'CA-1' }));
    await reconcileKeystone(fake);
    expect(keystoneCondition(fake, 'TLSInputReady')).toMatchObject({
      status: 'False',
      reason: 'Requested',
      message: 'TLSInput is missing: cert-keystone-internal-svc, cert-keystone-public-svc',
    });

    fake.seed(
      Kinds.Secret,
      fakeSecret('cert-keystone-internal-svc', { 'tls.crt': 'CRT' }, 'kubernetes.io/tls'),
    );
    fake.seed(Kinds.Secret, certSecret('cert-keystone-public-svc'));
    await reconcileKeystone(fake);
    expect(keystoneCondition(fake, 'TLSInputReady')?.message).toBe(
      'TLSInput is missing: key tls.key in Secret cert-keystone-internal-svc',
    );

    await fake.delete(Kinds.Secret, { namespace: NS, name: 'cert-keystone-internal-svc' });
    fake.seed(Kinds.Secret, certSecret('cert-keystone-internal-svc'));
    await convergeKeystone(fake);
    expect(keystoneCondition(fake, 'TLSInputReady')).toMatchObject({
      status: 'True',
      message: 'Input data complete',
    });
    const status = fake.peek<KeystoneAPI>(KeystoneKinds.KeystoneAPI, FAKE_KEYSTONE)?.status;
    expect(status?.apiEndpoints).toEqual({
      internal: 'https://keystone-internal.openstack.svc:5000',
      public: 'https://keystone-public.openstack.svc:5000',
    });
    const bootstrap = JSON.stringify(fake.peek(Kinds.Job, { namespace: NS, name: 'keystone-bootstrap' }));
    expect(bootstrap).toContain(
      '"OS_BOOTSTRAP_PUBLIC_URL","value":"https://keystone-public.openstack.svc:5000"',
    );
    const clouds = JSON.stringify(fake.peek(Kinds.ConfigMap, { namespace: NS, name: 'openstack-config' }));
    expect(clouds).toContain('https://keystone-public.openstack.svc:5000');
  });

  it('a new certificate or CA rolls the API pods (CONFIG_HASH) and re-runs no Job', async () => {
    const fake = new FakeKubeClient();
    seed(fake);
    fake.seed(Kinds.Secret, fakeSecret('combined-ca-bundle', { 'tls-ca-bundle.pem': 'CA-1' }));
    fake.seed(Kinds.Secret, certSecret('cert-keystone-internal-svc'));
    fake.seed(Kinds.Secret, certSecret('cert-keystone-public-svc'));
    await convergeKeystone(fake);
    const before = configHash(fake);
    const jobs = () =>
      fake
        .all(Kinds.Job)
        .map((j) => `${j.metadata.name}@${j.metadata.uid}`)
        .sort();
    const jobsBefore = jobs();
    const hashesBefore = {
      ...fake.peek<KeystoneAPI>(KeystoneKinds.KeystoneAPI, FAKE_KEYSTONE)?.status?.hash,
    };

    await setSecretData(fake, NS, 'cert-keystone-public-svc', { 'tls.crt': 'CRT-2' });
    await convergeKeystone(fake);
    const afterCert = configHash(fake);
    expect(afterCert).toBeDefined();
    expect(afterCert).not.toBe(before);

    await setSecretData(fake, NS, 'combined-ca-bundle', { 'tls-ca-bundle.pem': 'CA-2' });
    await convergeKeystone(fake);
    expect(configHash(fake)).not.toBe(afterCert);

    expect(jobs()).toEqual(jobsBefore);
    const hashesAfter = fake.peek<KeystoneAPI>(KeystoneKinds.KeystoneAPI, FAKE_KEYSTONE)?.status?.hash ?? {};
    for (const k of ['dbcreate', 'dbsync', 'bootstrap']) expect(hashesAfter[k]).toBe(hashesBefore[k]);
  });
});
