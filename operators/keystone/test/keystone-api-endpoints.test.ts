import { Kinds, type KubeObject } from '@stackops/lib-common/client';
import { setLoadBalancerIP } from '@stackops/lib-common/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getObject, useOperator } from './support/harness.js';
import {
  conditionOf,
  createDatabaseService,
  createInputSecret,
  createKeystone,
  createMemcachedService,
  preparedNamespace,
  serviceEndpoints,
  waitForKeystoneCondition,
  waitForKeystoneReady,
} from './support/keystone.js';

type SecretObj = KubeObject & { data: Record<string, string> };

describe('KeystoneAPI endpoints, overrides, external mode, memcached', () => {
  const suite = useOperator({ beforeAll, afterAll });

  it('service override (upstream functional test): LoadBalancer with its annotations, Ready once it has an IP', async () => {
    const { client } = suite;
    const ns = await preparedNamespace(suite);
    const annotations = {
      'dnsmasq.network.openstack.org/hostname': 'keystone-internal.openstack.svc',
      'metallb.universe.tf/address-pool': 'osp-internalapi',
      'metallb.universe.tf/allow-shared-ip': 'osp-internalapi',
      'metallb.universe.tf/loadBalancerIPs': 'internal-lb-ip-1,internal-lb-ip-2',
    };
    await createKeystone(client, ns, {
      override: {
        service: {
          internal: {
            metadata: { annotations, labels: { internal: 'true', service: 'keystone' } },
            spec: { type: 'LoadBalancer' },
          },
        },
      },
    });
    await waitForKeystoneCondition(client, ns, 'CreateServiceReady', 'False');
    await setLoadBalancerIP(client, ns, 'keystone-internal', '10.0.0.1');
    const cr = await waitForKeystoneReady(client, ns);
    expect(cr.status?.apiEndpoints).toEqual(serviceEndpoints(ns));
    const svc = await getObject(client, Kinds.Service, ns, 'keystone-internal');
    // The user's annotations win over the ones the operator would add (dnsmasq hostname here).
    expect(svc?.metadata.annotations).toMatchObject(annotations);
    expect(svc?.metadata.labels).toMatchObject({
      internal: 'true',
      service: 'keystone',
      endpoint: 'internal',
    });
  });

  it('override endpointURL publishes that URL for public; internal stays the Service URL', async () => {
    const { client } = suite;
    const ns = await preparedNamespace(suite);
    await createKeystone(client, ns, {
      override: { service: { public: { endpointURL: 'http://keystone-openstack.apps-crc.testing' } } },
    });
    const cr = await waitForKeystoneReady(client, ns);
    expect(cr.status?.apiEndpoints).toEqual({
      public: 'http://keystone-openstack.apps-crc.testing',
      internal: `http://keystone-internal.${ns}.svc:5000`,
    });
    const job = await getObject<
      KubeObject & { spec: { template: { spec: { containers: { env: unknown[] }[] } } } }
    >(client, Kinds.Job, ns, 'keystone-bootstrap');
    expect(job?.spec.template.spec.containers[0]?.env).toContainEqual({
      name: 'OS_BOOTSTRAP_PUBLIC_URL',
      value: 'http://keystone-openstack.apps-crc.testing',
    });
  });

  it('external mode: endpoints and region in status, clouds.yaml written, no Deployment/Jobs/database', async () => {
    const { client } = suite;
    const ns = await suite.namespace();
    await createInputSecret(client, ns, { AdminPassword: '12345678' });
    await createKeystone(client, ns, {
      externalKeystoneAPI: true,
      region: 'regionTwo',
      override: {
        service: {
          public: { endpointURL: 'https://keystone.example.test' },
          internal: { endpointURL: 'http://keystone-internal.example.test:5000' },
        },
      },
    });
    const cr = await waitForKeystoneReady(client, ns, 60_000);
    expect(cr.status).toMatchObject({
      apiEndpoints: {
        public: 'https://keystone.example.test',
        internal: 'http://keystone-internal.example.test:5000',
      },
      region: 'regionTwo',
    });
    // As upstream: TLSInputReady too (the CA bundle is verified in external mode as well).
    expect(cr.status?.conditions?.map((c) => c.type)).toEqual(['Ready', 'InputReady', 'TLSInputReady']);
    expect(await getObject(client, Kinds.Deployment, ns, 'keystone')).toBeUndefined();
    expect((await client.list(Kinds.Job, { namespace: ns })).items).toEqual([]);
    const secret = await getObject<SecretObj>(client, Kinds.Secret, ns, 'openstack-config-secret');
    expect(Buffer.from(secret?.data['cloudrc'] ?? '', 'base64').toString()).toContain(
      "export OS_AUTH_URL='https://keystone.example.test'",
    );
  });

  it('memcachedInstance: waits for the Service, then keystone.conf caches through it', async () => {
    const { client } = suite;
    // upstream's namespace without its memcached: osp-secret and the database only.
    const ns = await suite.namespace();
    await createInputSecret(client, ns);
    await createDatabaseService(client, ns);
    const created = await createKeystone(client, ns);
    // The API server stores upstream's default.
    expect(created.spec.memcachedInstance).toBe('memcached');
    const waiting = await waitForKeystoneCondition(client, ns, 'MemcachedReady', 'False');
    expect(conditionOf(waiting, 'MemcachedReady')).toMatchObject({
      reason: 'Error',
      severity: 'Warning',
      message: ' Memcached instance has not been provisioned',
    });
    await createMemcachedService(client, ns);
    await waitForKeystoneReady(client, ns);
    const config = await getObject<SecretObj>(client, Kinds.Secret, ns, 'keystone-config-data');
    const conf = Buffer.from(config?.data['keystone.conf'] ?? '', 'base64').toString();
    expect(conf).toContain(`memcache_servers=memcached.${ns}.svc:11211`);
    expect(conf).toContain('backend = dogpile.cache.memcached');
  });

  it("memcachedInstance: '' turns caching off: Ready without memcached, no MemcachedReady", async () => {
    const { client } = suite;
    const ns = await suite.namespace();
    await createInputSecret(client, ns);
    await createDatabaseService(client, ns);
    const created = await createKeystone(client, ns, { memcachedInstance: '' });
    expect(created.spec.memcachedInstance).toBe('');
    const cr = await waitForKeystoneReady(client, ns);
    expect(conditionOf(cr, 'MemcachedReady')).toBeUndefined();
    const config = await getObject<SecretObj>(client, Kinds.Secret, ns, 'keystone-config-data');
    const conf = Buffer.from(config?.data['keystone.conf'] ?? '', 'base64').toString();
    expect(conf).toContain('[cache]\nenabled=false\n');
  });

  it('without the database Service: DBReady waits and names it', async () => {
    const { client } = suite;
    const ns = await suite.namespace();
    await createInputSecret(client, ns);
    await createKeystone(client, ns, { databaseInstance: 'galera' });
    const cr = await waitForKeystoneCondition(client, ns, 'DBReady', 'False');
    expect(conditionOf(cr, 'DBReady')).toMatchObject({
      reason: 'Requested',
      severity: 'Info',
      message: 'DB create waiting for the database Service galera',
    });
  });
});
