import { Kinds, type KubeObject } from '@stackops/lib-common/client';
import { base64, conditionOf, FakeKubeClient, stepFailure } from '@stackops/lib-common/testing';
import { describe, expect, it } from 'vitest';
import { KeystoneKinds } from '../../api/group.js';
import type { KeystoneAPI } from '../../api/keystone-api.js';
import { defaultsFromEnv } from '../../config/defaults.js';
import { memcachedService } from '../../testing/memcached-service.js';
import { keystoneApiReconciler } from './keystone-api-reconciler.js';

const NS = 'openstack';
const ref = { namespace: NS, name: 'keystone' };

/** A KeystoneAPI that converges on the fake: its Secret, the database Service, memcached as a Service. */
function world(): FakeKubeClient {
  const fake = new FakeKubeClient();
  fake.seed(KeystoneKinds.KeystoneAPI, {
    apiVersion: 'keystone.openstack.org/v1beta1',
    kind: 'KeystoneAPI',
    metadata: { name: 'keystone', namespace: NS },
    spec: { secret: 'osp-secret' },
  } as KeystoneAPI);
  fake.seed(Kinds.Secret, {
    metadata: { name: 'osp-secret', namespace: NS },
    data: {
      AdminPassword: base64('admin-pw'),
      KeystoneDatabasePassword: base64('db-pw'),
      DbRootPassword: base64('root-pw'),
    },
  } as KubeObject);
  fake.seed(Kinds.Service, {
    metadata: { name: 'openstack', namespace: NS },
    spec: { ports: [{ port: 3306 }] },
  } as KubeObject);
  fake.seed(Kinds.Service, memcachedService(NS));
  return fake;
}

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
    expect(conditionOf(cr, expected)).toMatchObject({ status: 'False', reason: 'Error' });
    expect(conditionOf(cr, 'Ready')).toMatchObject({
      status: 'False',
      message: conditionOf(cr, expected)?.message,
    });
  });
});
