import { Kinds, type KubeObject } from '@stackops/lib-common/client';
import { ExternalKinds } from '@stackops/lib-common/external';
import { FakeKubeClient, fakeSecretText, simulateControllerManager } from '@stackops/lib-common/testing';
import { describe, expect, it } from 'vitest';
import {
  FAKE_KEYSTONE,
  FAKE_NS,
  keystoneCondition,
  reconcileKeystone,
  seedKeystoneWorld,
} from '../../../testing/keystone-api-fake.js';
import type { KeystoneApiPass } from '../context.js';
import { releaseMemcached } from './check-memcached.js';

const NS = FAKE_NS;
const _ref = FAKE_KEYSTONE;
const memcachedRef = { namespace: NS, name: 'memcached' };

function seed(fake: FakeKubeClient, withMemcachedCR = true) {
  seedKeystoneWorld(fake, { memcachedInstance: 'memcached' }, { memcached: false });
  if (!withMemcachedCR) return;
  fake.seed(ExternalKinds.Memcached, {
    apiVersion: 'memcached.openstack.org/v1beta1',
    kind: 'Memcached',
    metadata: { name: 'memcached', namespace: NS },
    spec: { containerImage: 'memcached', replicas: 2 },
  } as KubeObject);
}

const reconcile = (fake: FakeKubeClient) => reconcileKeystone(fake);
const conditionOf = keystoneCondition;

/** Passes (Jobs finishing in between) until the memcached step has spoken. */
async function untilMemcachedChecked(fake: FakeKubeClient) {
  for (let i = 0; i < 8 && conditionOf(fake, 'MemcachedReady')?.status === 'Unknown'; i++) {
    await reconcile(fake);
    await simulateControllerManager(fake);
  }
}

function keystoneConf(fake: FakeKubeClient): string {
  return fakeSecretText(fake, { namespace: NS, name: 'keystone-config-data' }, 'keystone.conf') ?? '';
}

/** A fake with a Ready, TLS-serving Memcached CR of one pod whose `spec.tls.mtls` is `mtls`; reconciled until the CronJob exists. */
async function convergedWithTlsMemcached(mtls: Record<string, unknown>): Promise<FakeKubeClient> {
  const fake = new FakeKubeClient();
  seed(fake);
  const m = fake.peek(ExternalKinds.Memcached, memcachedRef)!;
  fake.seed(ExternalKinds.Memcached, {
    ...m,
    spec: { containerImage: 'memcached', replicas: 1, tls: { secretName: 'cert-memcached-svc', mtls } },
    status: {
      conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: new Date().toISOString() }],
      serverList: ['memcached-0.memcached.openstack.svc:11211'],
      serverListWithInet: ['inet:[memcached-0.memcached.openstack.svc]:11211'],
      tlsSupport: true,
    },
  });
  for (let i = 0; i < 12 && !fake.peek(Kinds.CronJob, { namespace: NS, name: 'keystone-cron' }); i++) {
    await reconcile(fake);
    await simulateControllerManager(fake);
  }
  return fake;
}

describe('KeystoneAPI memcached step with infra-operator (memcachedInstance names a Memcached CR)', () => {
  it('holds the Memcached CR with its finalizer, waits for it, then caches on its per-pod servers', async () => {
    const fake = new FakeKubeClient();
    seed(fake);
    await reconcile(fake);
    await untilMemcachedChecked(fake);
    expect(conditionOf(fake, 'MemcachedReady')).toMatchObject({
      status: 'False',
      reason: 'Requested',
      severity: 'Info',
      message: ' Memcached instance has not been provisioned',
    });
    expect(fake.peek(ExternalKinds.Memcached, memcachedRef)?.metadata.finalizers).toEqual([
      'openstack.org/keystoneapi',
    ]);

    // infra-operator reports it Ready, one server per pod.
    const m = fake.peek(ExternalKinds.Memcached, memcachedRef)!;
    fake.seed(ExternalKinds.Memcached, {
      ...m,
      status: {
        conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: new Date().toISOString() }],
        serverList: [
          'memcached-0.memcached.openstack.svc:11211',
          'memcached-1.memcached.openstack.svc:11211',
        ],
        serverListWithInet: [
          'inet:[memcached-0.memcached.openstack.svc]:11211',
          'inet:[memcached-1.memcached.openstack.svc]:11211',
        ],
      },
    });
    await reconcile(fake);
    expect(conditionOf(fake, 'MemcachedReady')).toMatchObject({ status: 'True' });
    // Both pods, in serverList's or serverListWithInet's form (the template picks by TLS).
    expect(keystoneConf(fake)).toMatch(
      /memcache_servers\s*=\s*\S*memcached-0\.memcached\.openstack\.svc\S*memcached-1\.memcached\.openstack\.svc/,
    );
  });

  it("on deletion its finalizer leaves the Memcached CR and nobody else's", async () => {
    const fake = new FakeKubeClient();
    seed(fake);
    const m = fake.peek(ExternalKinds.Memcached, memcachedRef)!;
    fake.seed(ExternalKinds.Memcached, {
      ...m,
      metadata: { ...m.metadata, finalizers: ['openstack.org/other', 'openstack.org/keystoneapi'] },
    });
    const ctx = {
      client: fake,
      cr: { metadata: { name: 'keystone', namespace: NS } },
      spec: { memcachedInstance: 'memcached' },
    } as unknown as KeystoneApiPass;
    await releaseMemcached(ctx);
    expect(fake.peek(ExternalKinds.Memcached, memcachedRef)?.metadata.finalizers).toEqual([
      'openstack.org/other',
    ]);
  });

  it('without a Memcached CR a Service of that name is the one server; neither is a Warning wait', async () => {
    const fake = new FakeKubeClient();
    seed(fake, false);
    await reconcile(fake);
    await untilMemcachedChecked(fake);
    expect(conditionOf(fake, 'MemcachedReady')).toMatchObject({ status: 'False', severity: 'Warning' });
    fake.seed(Kinds.Service, {
      metadata: { name: 'memcached', namespace: NS },
      spec: { ports: [{ name: 'memcached', port: 11211 }] },
    } as KubeObject);
    await reconcile(fake);
    expect(conditionOf(fake, 'MemcachedReady')).toMatchObject({ status: 'True' });
    expect(keystoneConf(fake)).toContain('memcached.openstack.svc:11211');
  });

  it('with TLS and mTLS on the Memcached: memcache_pool with upstream timeouts and the client certificate, mounted in every pod that reads keystone.conf', async () => {
    const fake = await convergedWithTlsMemcached({
      sslVerifyMode: 'Require',
      authCertSecret: { secretName: 'cert-memcached-mtls' },
    });
    const cache = keystoneConf(fake).split('[cache]\n')[1]?.split('\n\n')[0];
    expect(cache).toBe(
      [
        'backend = oslo_cache.memcache_pool',
        'memcache_servers=memcached-0.memcached.openstack.svc:11211',
        'memcache_socket_timeout = 0.5',
        'memcache_pool_connection_get_timeout = 1',
        'tls_certfile=/etc/pki/tls/certs/mtls.crt',
        'tls_keyfile=/etc/pki/tls/private/mtls.key',
        'tls_cafile=/etc/pki/tls/certs/mtls-ca.crt',
        'memcache_dead_retry = 30',
        'enabled=true',
        'tls_enabled=true',
      ].join('\n'),
    );
    const volume = {
      name: 'cert-memcached-mtls',
      secret: { secretName: 'cert-memcached-mtls', defaultMode: 0o400 },
    };
    const mountsOf = (dir: { cert: string; key: string }) => [
      { name: 'cert-memcached-mtls', mountPath: `${dir.cert}/mtls.crt`, subPath: 'tls.crt', readOnly: true },
      { name: 'cert-memcached-mtls', mountPath: `${dir.key}/mtls.key`, subPath: 'tls.key', readOnly: true },
      {
        name: 'cert-memcached-mtls',
        mountPath: `${dir.cert}/mtls-ca.crt`,
        subPath: 'ca.crt',
        readOnly: true,
      },
    ];
    type Pod = { volumes: unknown[]; containers: { volumeMounts: unknown[] }[] };
    const deployment = fake.peek<KubeObject & { spec: { template: { spec: Pod } } }>(Kinds.Deployment, {
      namespace: NS,
      name: 'keystone',
    })!.spec.template.spec;
    expect(deployment.volumes).toContainEqual(volume);
    // the API pods: kolla copies /var/lib/config-data/mtls/ to /etc/pki/tls/
    expect(deployment.containers[0]?.volumeMounts).toEqual(
      expect.arrayContaining(
        mountsOf({ cert: '/var/lib/config-data/mtls/certs', key: '/var/lib/config-data/mtls/private' }),
      ),
    );
    const direct = mountsOf({ cert: '/etc/pki/tls/certs', key: '/etc/pki/tls/private' });
    const bootstrap = fake.peek<KubeObject & { spec: { template: { spec: Pod } } }>(Kinds.Job, {
      namespace: NS,
      name: 'keystone-bootstrap',
    })!.spec.template.spec;
    expect(bootstrap.volumes).toContainEqual(volume);
    expect(bootstrap.containers[0]?.volumeMounts).toEqual(expect.arrayContaining(direct));
    const cron = fake.peek<KubeObject & { spec: { jobTemplate: { spec: { template: { spec: Pod } } } } }>(
      Kinds.CronJob,
      { namespace: NS, name: 'keystone-cron' },
    )!.spec.jobTemplate.spec.template.spec;
    expect(cron.volumes).toContainEqual({ ...volume, secret: { ...volume.secret, defaultMode: 0o440 } });
    expect(cron.containers[0]?.volumeMounts).toEqual(expect.arrayContaining(direct));
  });

  it('with TLS but sslVerifyMode None: memcache_pool without a client certificate, nothing mounted', async () => {
    const fake = await convergedWithTlsMemcached({
      sslVerifyMode: 'None',
      authCertSecret: { secretName: 'cert-memcached-mtls' },
    });
    expect(keystoneConf(fake)).toContain('backend = oslo_cache.memcache_pool');
    expect(keystoneConf(fake)).not.toContain('tls_certfile');
    expect(JSON.stringify(fake.peek(Kinds.Deployment, { namespace: NS, name: 'keystone' }))).not.toContain(
      'mtls',
    );
  });
});
