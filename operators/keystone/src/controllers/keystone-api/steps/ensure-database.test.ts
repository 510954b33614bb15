import { Kinds, type KubeObject } from '@stackops/lib-common/client';
import { ExternalKinds } from '@stackops/lib-common/external';
import {
  FakeKubeClient,
  fakeSecretText,
  seedGalera,
  simulateControllerManager,
  simulateMariadbOperator,
} from '@stackops/lib-common/testing';
import { describe, expect, it } from 'vitest';
import { KeystoneKinds } from '../../../api/group.js';
import type { KeystoneAPI } from '../../../api/keystone-api.js';
import {
  FAKE_KEYSTONE,
  FAKE_NS,
  keystoneCondition,
  reconcileKeystone,
  seedKeystoneWorld,
} from '../../../testing/keystone-api-fake.js';

const NS = FAKE_NS;
const ref = FAKE_KEYSTONE;

/** An openstack-k8s-operators shaped namespace: osp-secret, the Galera `openstack` and its Service. */
function seedControlPlane(fake: FakeKubeClient) {
  seedKeystoneWorld(
    fake,
    { databaseInstance: 'openstack' },
    { passwords: { AdminPassword: 'admin-pw', KeystoneDatabasePassword: 'osp-db-pw', DbRootPassword: 'r' } },
  );
  seedGalera(fake, NS);
}

const reconcile = (fake: FakeKubeClient) => reconcileKeystone(fake);
const conditionOf = keystoneCondition;

const mariadbOperatorReports = (fake: FakeKubeClient) =>
  simulateMariadbOperator(fake, { namespace: NS, name: 'keystone' });

describe('KeystoneAPI database step, mariadb-operator mode (databaseInstance names a Galera CR)', () => {
  it('asks mariadb-operator through MariaDBAccount/MariaDBDatabase, runs no db-create Job, and connects as the account', async () => {
    const fake = new FakeKubeClient();
    seedControlPlane(fake);
    for (let i = 0; i < 6 && conditionOf(fake, 'DBReady')?.status !== 'True'; i++) {
      await reconcile(fake);
      mariadbOperatorReports(fake);
    }
    expect(conditionOf(fake, 'DBReady')).toMatchObject({ status: 'True', message: 'DB create completed' });
    expect(conditionOf(fake, 'MariaDBAccountReady')).toMatchObject({
      status: 'True',
      message: 'MariaDBAccount creation complete',
    });
    const account = fake.peek<KubeObject & { spec: { userName: string; secret: string } }>(
      ExternalKinds.MariaDBAccount,
      { namespace: NS, name: 'keystone' },
    );
    expect(account?.spec.secret).toBe('keystone-db-secret');
    expect(account?.metadata.finalizers).toEqual(['openstack.org/keystoneapi']);
    const db = fake.peek(ExternalKinds.MariaDBDatabase, { namespace: NS, name: 'keystone' });
    expect(db?.metadata.labels).toEqual({ dbName: 'openstack' });
    expect(db?.metadata.ownerReferences?.[0]).toMatchObject({ kind: 'KeystoneAPI', name: 'keystone' });
    expect(fake.all(Kinds.Job).map((j) => j.metadata.name)).not.toContain('keystone-db-create');
    expect(fake.peek<KeystoneAPI>(KeystoneKinds.KeystoneAPI, ref)?.status?.databaseHostname).toBe(
      'openstack.openstack.svc',
    );

    // The account's password (not osp-secret's) is in the connection keystone.conf gets.
    await simulateControllerManager(fake);
    await reconcile(fake);
    const password = fakeSecretText(fake, { namespace: NS, name: 'keystone-db-secret' }, 'DatabasePassword');
    expect(password).toMatch(/^[0-9a-f]{32}$/);
    const conf = fakeSecretText(fake, { namespace: NS, name: 'keystone-config-data' }, 'keystone.conf');
    expect(conf).toContain(`://${account?.spec.userName}:${password}@openstack.openstack.svc/keystone?`);
    expect(conf).not.toContain('osp-db-pw');
  });
});
