import { Kinds, type KubeObject } from '@stackops/lib-common/client';
import {
  base64,
  conditionOf as conditionIn,
  expectPdbFollowsReplicas,
  FakeKubeClient,
  stepFailure,
} from '@stackops/lib-common/testing';
import { describe, expect, it } from 'vitest';
import { KeystoneKinds } from '../../api/group.js';
import type { KeystoneAPI } from '../../api/keystone-api.js';
import { defaultsFromEnv } from '../../config/defaults.js';
import {
  convergeKeystone,
  fakeKeystoneAPI,
  keystoneCondition,
  reconcileKeystone,
  seedKeystoneWorld,
} from '../../testing/keystone-api-fake.js';
import { memcachedService } from '../../testing/memcached-service.js';
import { keystoneApiReconciler } from './keystone-api-reconciler.js';

const NS = 'openstack';
const ref = { namespace: NS, name: 'keystone' };
const NOW = new Date('2026-03-01T12:00:00Z');

const keystoneAPI = fakeKeystoneAPI;

const ospSecret = (data: Record<string, string> = {}): KubeObject =>
  ({
    metadata: { name: 'osp-secret', namespace: NS },
    data: {
      AdminPassword: base64('admin-pw'),
      KeystoneDatabasePassword: base64('db-pw'),
      DbRootPassword: base64('root-pw'),
      ...data,
    },
  }) as KubeObject;

const databaseService = (): KubeObject =>
  ({ metadata: { name: 'openstack', namespace: NS }, spec: { ports: [{ port: 3306 }] } }) as KubeObject;

const conditionOf = keystoneCondition;
const reconcile = (fake: FakeKubeClient) => reconcileKeystone(fake, { now: () => NOW });
const converge = (fake: FakeKubeClient, passes = 12) => convergeKeystone(fake, { now: () => NOW, passes });

describe('KeystoneAPI reconciler (steps on a fake API server)', () => {
  it('without its Secret: finalizer, every condition initialised, InputReady False, checked again in 10 s', async () => {
    const fake = new FakeKubeClient();
    fake.seed(KeystoneKinds.KeystoneAPI, keystoneAPI());
    const { result } = await reconcile(fake);
    expect(result).toEqual({ requeueAfterMs: 10_000 });
    const cr = fake.peek<KeystoneAPI>(KeystoneKinds.KeystoneAPI, ref);
    expect(cr?.metadata.finalizers).toEqual(['openstack.org/keystoneapi']);
    expect(conditionOf(fake, 'InputReady')).toMatchObject({
      status: 'False',
      message: 'Input data resources missing: Secret osp-secret',
    });
    expect(conditionOf(fake, 'DBReady')).toMatchObject({ status: 'Unknown', reason: 'Init' });
    // memcachedInstance defaults to upstream's `memcached`: its condition is reported from the start.
    expect(conditionOf(fake, 'MemcachedReady')).toMatchObject({ status: 'Unknown', reason: 'Init' });
    expect(fake.all(Kinds.Job)).toEqual([]);
  });

  it('an invalid password names its key in an Event, never the value', async () => {
    const fake = new FakeKubeClient();
    fake.seed(KeystoneKinds.KeystoneAPI, keystoneAPI());
    fake.seed(Kinds.Secret, ospSecret({ KeystoneDatabasePassword: base64('$(rm -rf)') }));
    const { events } = await reconcile(fake);
    expect(conditionOf(fake, 'InputReady')).toMatchObject({
      status: 'False',
      message: 'Input data error occurred password does not meet the requirements',
    });
    expect(events).toContainEqual(expect.objectContaining({ type: 'Warning', reason: 'InvalidPassword' }));
    expect(JSON.stringify(events)).not.toContain('rm -rf');
  });

  it('waits for the database Service, naming it, and creates nothing before', async () => {
    const fake = new FakeKubeClient();
    fake.seed(KeystoneKinds.KeystoneAPI, keystoneAPI());
    fake.seed(Kinds.Secret, ospSecret());
    const { result } = await reconcile(fake);
    expect(result).toEqual({ requeueAfterMs: 10_000 });
    expect(conditionOf(fake, 'InputReady')?.status).toBe('True');
    expect(conditionOf(fake, 'DBReady')?.message).toContain('openstack');
    expect(fake.all(Kinds.Job)).toEqual([]);
  });

  it('converges in upstream order to Ready; then a pass writes nothing and comes back at the next rotation', async () => {
    const fake = new FakeKubeClient();
    fake.seed(KeystoneKinds.KeystoneAPI, keystoneAPI({ fernetRotationDays: 2 }));
    fake.seed(Kinds.Secret, ospSecret());
    fake.seed(Kinds.Service, databaseService());
    fake.seed(Kinds.Service, memcachedService(NS));
    const { events } = await converge(fake);
    expect(events).toContainEqual(expect.objectContaining({ type: 'Normal', reason: 'Ready' }));
    const jobs = fake.all(Kinds.Job).map((j) => j.metadata.name);
    expect(jobs.sort()).toEqual(['keystone-bootstrap', 'keystone-db-create', 'keystone-db-sync']);
    expect(fake.peek(Kinds.Deployment, { namespace: NS, name: 'keystone' })).toBeDefined();
    expect(fake.peek(Kinds.CronJob, { namespace: NS, name: 'keystone-cron' })).toBeDefined();
    expect(fake.peek(Kinds.ConfigMap, { namespace: NS, name: 'openstack-config' })).toBeDefined();
    const status = fake.peek<KeystoneAPI>(KeystoneKinds.KeystoneAPI, ref)?.status;
    expect(status?.apiEndpoints).toEqual({
      internal: 'http://keystone-internal.openstack.svc:5000',
      public: 'http://keystone-public.openstack.svc:5000',
    });
    expect(Object.keys(status?.hash ?? {}).sort()).toEqual(['bootstrap', 'dbcreate', 'dbsync', 'input']);

    const writes = fake.writes();
    const { result, events: quiet } = await reconcile(fake);
    expect(fake.writes()).toBe(writes);
    expect(quiet).toEqual([]);
    expect(result).toEqual({ requeueAfterMs: 2 * 24 * 3600 * 1000 });
  });

  it('with several replicas, owns a PodDisruptionBudget (maxUnavailable 1) and reports PDBReady; at one replica, deletes it', async () => {
    const fake = seedKeystoneWorld(new FakeKubeClient(), { replicas: 2 });
    await expectPdbFollowsReplicas(fake, {
      kind: KeystoneKinds.KeystoneAPI,
      ref,
      service: 'keystone',
      converge: () => converge(fake),
      reconcile: () => reconcile(fake),
    });
  });

  it('external mode publishes the given endpoints and deploys nothing', async () => {
    const fake = new FakeKubeClient();
    const url = (t: string) => ({ endpointURL: `https://keystone-${t}.example.com` });
    fake.seed(
      KeystoneKinds.KeystoneAPI,
      keystoneAPI({
        externalKeystoneAPI: true,
        override: { service: { internal: url('internal'), public: url('public') } },
      }),
    );
    fake.seed(Kinds.Secret, ospSecret());
    await converge(fake, 2);
    expect(fake.peek<KeystoneAPI>(KeystoneKinds.KeystoneAPI, ref)?.status?.apiEndpoints).toEqual({
      internal: 'https://keystone-internal.example.com',
      public: 'https://keystone-public.example.com',
    });
    expect(fake.all(Kinds.Deployment)).toEqual([]);
    expect(fake.all(Kinds.Job)).toEqual([]);
    expect(fake.peek(Kinds.Secret, { namespace: NS, name: 'openstack-config-secret' })).toBeDefined();
  });

  it('deletion waits while a KeystoneService holds the KeystoneAPI, then releases it', async () => {
    const fake = new FakeKubeClient();
    const held = 'openstack.org/keystoneservice-placement';
    fake.seed(KeystoneKinds.KeystoneAPI, {
      ...keystoneAPI(),
      metadata: { ...keystoneAPI().metadata, finalizers: ['openstack.org/keystoneapi', held] },
    });
    await fake.delete(KeystoneKinds.KeystoneAPI, ref);
    await reconcile(fake);
    expect(fake.peek<KeystoneAPI>(KeystoneKinds.KeystoneAPI, ref)?.metadata.finalizers).toContain(
      'openstack.org/keystoneapi',
    );
    const cr = fake.peek<KeystoneAPI>(KeystoneKinds.KeystoneAPI, ref);
    await fake.patch(
      KeystoneKinds.KeystoneAPI,
      ref,
      { metadata: { finalizers: cr?.metadata.finalizers?.filter((f) => f !== held) } },
      'merge',
    );
    await reconcile(fake);
    expect(fake.peek(KeystoneKinds.KeystoneAPI, ref)).toBeUndefined();
  });
});

const world = () => seedKeystoneWorld(new FakeKubeClient());

describe('KeystoneAPI: an API error lands on the condition of the step that hit it, and nowhere else', () => {
  // Conditions are listed in upstream's order (TLSInputReady second), not in step order: a failure
  // must never be told on the first condition not yet True.
  it.each([
    ['ensureDatabase', { verb: 'create', kind: 'Job', name: 'keystone-db-create' }, 'DBReady'],
    ['checkMemcached', { verb: 'get', kind: 'Memcached' }, 'MemcachedReady'],
    ['ensureConfigSecret', { verb: 'apply', kind: 'Secret', name: 'keystone-scripts' }, 'ServiceConfigReady'],
    ['ensureFernetKeys', { verb: 'apply', kind: 'Secret', name: 'keystone' }, 'ServiceConfigReady'],
    ['ensureRbac', { verb: 'apply', kind: 'Role' }, 'RoleReady'],
    ['runDbSync', { verb: 'create', kind: 'Job', name: 'keystone-db-sync' }, 'DBSyncReady'],
    ['ensureServices', { verb: 'apply', kind: 'Service', name: 'keystone-public' }, 'CreateServiceReady'],
    ['runBootstrap', { verb: 'create', kind: 'Job', name: 'keystone-bootstrap' }, 'BootstrapReady'],
    ['ensureDeployment', { verb: 'apply', kind: 'Deployment' }, 'DeploymentReady'],
    ['ensureCronJob', { verb: 'apply', kind: 'CronJob' }, 'CronJobReady'],
    ['ensureCloudConfig (no condition of its own)', { verb: 'apply', kind: 'ConfigMap' }, 'Ready'],
  ] as const)('%s: %j fails → %s False (Error)', async (_step, failOn, expected) => {
    const { conditions, changed } = await stepFailure<KeystoneAPI>({
      world,
      kind: KeystoneKinds.KeystoneAPI,
      ref,
      reconciler: () => keystoneApiReconciler(defaultsFromEnv({})),
      failOn,
    });
    const cr = { metadata: {}, status: { conditions } } as KubeObject;
    expect(changed).toEqual(expected === 'Ready' ? [] : [expected]);
    expect(conditionIn(cr, expected)).toMatchObject({ status: 'False', reason: 'Error' });
    expect(conditionIn(cr, 'Ready')).toMatchObject({
      status: 'False',
      message: conditionIn(cr, expected)?.message,
    });
  });
});
