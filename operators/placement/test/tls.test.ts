import { type KeystoneEndpoint, KeystoneKinds } from '@stackops/keystone-operator';
import { Kinds, type KubeObject } from '@stackops/lib-common/client';
import { waitUntil } from '@stackops/lib-common/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  configFile,
  createPlacementAPI,
  createPrerequisites,
  getPlacementAPI,
  simulateKeystoneRegistration,
  waitForCondition,
  waitForPlacement,
} from './support/fixtures.js';
import { useOperator } from './support/harness.js';

/**
 * Pod-level TLS on the real API server (kwok runs the pods): the Secrets `tls` names are watched by
 * name, so the PlacementAPI waits while they are missing and goes on when they appear; endpoints
 * become https; a renewed certificate rolls the API pods and nothing else runs again.
 */

type Pod = {
  volumes: { name: string; secret?: { secretName: string } }[];
  containers: { env?: { name: string; value?: string }[]; volumeMounts: { mountPath: string }[] }[];
};
type Deployment = KubeObject & { spec: { template: { spec: Pod } } };
type Job = KubeObject & { spec: { template: { spec: Pod } } };

const suite = useOperator({ beforeAll, afterAll }, 1);
const TLS = {
  api: { internal: { secretName: 'cert-internal-svc' }, public: { secretName: 'cert-public-svc' } },
  caBundleSecretName: 'combined-ca-bundle',
};

async function putSecret(name: string, data: Record<string, string>, type = 'Opaque'): Promise<void> {
  const namespace = suite.namespaces[0]!;
  const body = { apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace }, type, stringData: data };
  if (await suite.client.get(Kinds.Secret, { name, namespace }))
    await suite.client.patch(Kinds.Secret, { name, namespace }, { stringData: data }, 'merge');
  else await suite.client.create(Kinds.Secret, body as KubeObject);
}
const certData = (cert: string) => ({ 'tls.crt': cert, 'tls.key': `${cert}-key` });
const deployment = () =>
  suite.client.get<Deployment>(Kinds.Deployment, { name: 'placement', namespace: suite.namespaces[0]! });
const configHash = async () =>
  (await deployment())?.spec.template.spec.containers[1]?.env?.find((e) => e.name === 'CONFIG_HASH')?.value;

describe('a PlacementAPI with tls', () => {
  it('waits for its TLS Secrets by name, then serves https and publishes https endpoints', async () => {
    const client = suite.client;
    const n = suite.namespaces[0]!;
    await createPrerequisites(client, n);
    await createPlacementAPI(client, n, { tls: TLS });
    await waitForCondition(client, n, 'TLSInputReady', 'False', {
      message: 'TLSInput is missing: combined-ca-bundle',
      timeoutMs: 90_000,
    });
    await putSecret('combined-ca-bundle', { 'tls-ca-bundle.pem': 'CA-1' });
    await waitForCondition(client, n, 'TLSInputReady', 'False', {
      message: 'TLSInput is missing: cert-internal-svc, cert-public-svc',
    });
    await putSecret('cert-internal-svc', certData('internal-1'), 'kubernetes.io/tls');
    await putSecret('cert-public-svc', certData('public-1'), 'kubernetes.io/tls');
    await waitForCondition(client, n, 'TLSInputReady', 'True', { message: 'Input data complete' });

    await simulateKeystoneRegistration(client, n);
    const ready = await waitForCondition(client, n, 'Ready', 'True', { timeoutMs: 90_000 });
    const https = {
      internal: `https://placement-internal.${n}.svc:8778`,
      public: `https://placement-public.${n}.svc:8778`,
    };
    expect(ready.status?.apiEndpoints).toEqual(https);
    const ep = await client.get<KeystoneEndpoint>(KeystoneKinds.KeystoneEndpoint, {
      name: 'placement',
      namespace: n,
    });
    expect(ep?.spec.endpoints).toEqual(https);
    expect(await configFile(client, n, 'httpd.conf')).toContain(
      'SSLCertificateFile      "/etc/pki/tls/certs/public.crt"',
    );

    const pod = (await deployment())!.spec.template.spec;
    expect(pod.volumes.map((v) => [v.name, v.secret?.secretName])).toEqual([
      ['scripts', 'placement-scripts'],
      ['config-data', 'placement-config-data'],
      ['logs', undefined],
      ['combined-ca-bundle', 'combined-ca-bundle'],
      ['internal-tls-certs', 'cert-internal-svc'],
      ['public-tls-certs', 'cert-public-svc'],
    ]);
    const dbSync = await client.get<Job>(Kinds.Job, { name: 'placement-db-sync', namespace: n });
    expect(dbSync?.spec.template.spec.containers[0]?.volumeMounts.map((m) => m.mountPath)).toContain(
      '/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem',
    );
  });

  it('a renewed certificate or CA rolls the API pods; the Jobs do not run again', async () => {
    const client = suite.client;
    const n = suite.namespaces[0]!;
    const before = await getPlacementAPI(client, n);
    const jobUid = async (name: string) =>
      (await client.get(Kinds.Job, { name, namespace: n }))?.metadata.uid;
    const jobs = [await jobUid('placement-db-create'), await jobUid('placement-db-sync')];
    const hash1 = await configHash();

    await putSecret('cert-public-svc', certData('public-2'));
    const hash2 = await waitUntil('CONFIG_HASH after the new certificate', async () => {
      const h = await configHash();
      return h !== hash1 ? h : undefined;
    });
    await putSecret('combined-ca-bundle', { 'tls-ca-bundle.pem': 'CA-2' });
    await waitUntil('CONFIG_HASH after the new CA', async () =>
      (await configHash()) !== hash2 ? true : undefined,
    );
    const after = await waitForPlacement(
      client,
      n,
      'input hash recorded',
      (cr) => cr.status?.hash?.['input'] !== before?.status?.hash?.['input'],
    );
    expect(after.status?.hash?.['dbsync']).toBe(before?.status?.hash?.['dbsync']);
    expect([await jobUid('placement-db-create'), await jobUid('placement-db-sync')]).toEqual(jobs);
  });
});
