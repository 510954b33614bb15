import { Kinds, type KubeObject } from '@stackops/lib-common/client';
import { ExternalKinds } from '@stackops/lib-common/external';
import { FakeKubeClient, reconcileOnce, simulateControllerManager } from '@stackops/lib-common/testing';
import { describe, expect, it } from 'vitest';
import { KeystoneKinds } from '../../../api/group.js';
import type { KeystoneAPI } from '../../../api/keystone-api.js';
import { defaultsFromEnv } from '../../../config/defaults.js';
import type { KeystoneApiPass } from '../context.js';
import { keystoneApiReconciler } from '../keystone-api-reconciler.js';
import { releaseMemcached } from './check-memcached.js';

const NS = 'openstack';
const ref = { namespace: NS, name: 'keystone' };
const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
const memcachedRef = { namespace: NS, name: 'memcached' };

function seed(fake: FakeKubeClient, withMemcachedCR = true) {
  fake.seed(KeystoneKinds.KeystoneAPI, {
    apiVersion: 'keystone.openstack.org/v1beta1',
    kind: 'KeystoneAPI',
    metadata: { name: 'keystone', namespace: NS },
    spec: { secret: 'osp-secret', memcachedInstance: 'memcached' },
  } as KeystoneAPI);
  fake.seed(Kinds.Secret, {
    metadata: { name: 'osp-secret', namespace: NS },
    data: { AdminPassword: b64('a'), KeystoneDatabasePassword: b64('d'), DbRootPassword: b64('r') },
  } as KubeObject);
  fake.seed(Kinds.Service, {
    metadata: { name: 'openstack', namespace: NS },
    spec: { ports: [{ port: 3306 }] },
  } as KubeObject);
  if (!withMemcachedCR) return;
  fake.seed(ExternalKinds.Memcached, {
    apiVersion: 'memcached.openstack.org/v1beta1',
    kind: 'Memcached',
    metadata: { name: 'memcached', namespace: NS },
    spec: { containerImage: 'memcached', replicas: 2 },
  } as KubeObject);
}

const reconcile = (fake: FakeKubeClient) =>
  reconcileOnce<KeystoneAPI>(
    fake,
    KeystoneKinds.KeystoneAPI,
    ref,
    keystoneApiReconciler(defaultsFromEnv({})),
  );
const conditionOf = (fake: FakeKubeClient, type: string) =>
  fake.peek<KeystoneAPI>(KeystoneKinds.KeystoneAPI, ref)?.status?.conditions?.find((c) => c.type === type);

/** Passes (Jobs finishing in between) until the memcached step has spoken. */
async function untilMemcachedChecked(fake: FakeKubeClient) {
  for (let i = 0; i < 8 && conditionOf(fake, 'MemcachedReady')?.status === 'Unknown'; i++) {
    await reconcile(fake);
    await simulateControllerManager(fake);
  }
}

function keystoneConf(fake: FakeKubeClient): string {
  const s = fake.peek<KubeObject & { data?: Record<string, string>; stringData?: Record<string, string> }>(
    Kinds.Secret,
    { namespace: NS, name: 'keystone-config-data' },
  );
  return (
    s?.stringData?.['keystone.conf'] ?? Buffer.from(s?.data?.['keystone.conf'] ?? '', 'base64').toString()
  );
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
});
