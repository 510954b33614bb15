import { Kinds, type KubeObject } from '@stackops/lib-common/client';
import { ExternalKinds } from '@stackops/lib-common/external';
import { base64, FakeKubeClient, seedGalera, simulateMariadbOperator } from '@stackops/lib-common/testing';
import { describe, expect, it } from 'vitest';
import {
  placementCondition as conditionOf,
  FAKE_PLACEMENT,
  reconcilePlacement as reconcile,
  unreconciledPlacementAPI,
} from '../../../test/fixtures.js';
import { type PlacementAPI, PlacementAPIKind } from '../../api/kinds.js';

const ref = FAKE_PLACEMENT;
const NS = ref.namespace;

/** An openstack-k8s-operators shaped namespace: osp-secret, the Galera `openstack` and its Service. */
function seedControlPlane(fake: FakeKubeClient) {
  fake.seed(PlacementAPIKind, unreconciledPlacementAPI());
  fake.seed(Kinds.Secret, {
    metadata: { name: 'osp-secret', namespace: NS },
    data: { PlacementPassword: base64('placement-pw'), DbRootPassword: base64('root-pw') },
  } as KubeObject);
  seedGalera(fake, NS);
}

const mariadbOperatorReports = (fake: FakeKubeClient) =>
  simulateMariadbOperator(fake, { namespace: NS, name: 'placement' });

describe('PlacementAPI database step, mariadb-operator mode (databaseInstance names a Galera CR)', () => {
  it('creates MariaDBAccount/MariaDBDatabase as upstream, waits for their readiness and runs no db-create Job', async () => {
    const fake = new FakeKubeClient();
    seedControlPlane(fake);
    await reconcile(fake);
    await reconcile(fake);
    expect(conditionOf(fake, 'DBReady')).toMatchObject({
      status: 'False',
      reason: 'Requested',
      message: 'DB create job still running',
    });
    for (let i = 0; i < 6 && conditionOf(fake, 'DBReady')?.status !== 'True'; i++) {
      mariadbOperatorReports(fake);
      await reconcile(fake);
    }
    expect(conditionOf(fake, 'DBReady')).toMatchObject({ status: 'True', message: 'DB create completed' });
    const account = fake.peek<KubeObject & { spec: { userName: string; secret: string } }>(
      ExternalKinds.MariaDBAccount,
      { namespace: NS, name: 'placement' },
    );
    expect(account?.spec.userName).toMatch(/^placement_[0-9a-f]{4}$/);
    expect(account?.spec.secret).toBe('placement-db-secret');
    expect(account?.metadata.labels).toEqual({ mariaDBDatabaseName: 'placement' });
    expect(account?.metadata.finalizers).toEqual(['openstack.org/placementapi']);
    const db = fake.peek<KubeObject & { spec: { name: string } }>(ExternalKinds.MariaDBDatabase, {
      namespace: NS,
      name: 'placement',
    });
    expect(db?.spec.name).toBe('placement');
    expect(db?.metadata.labels).toEqual({ dbName: 'openstack' });
    expect(fake.all(Kinds.Job).map((j) => j.metadata.name)).not.toContain('placement-db-create');
    expect(fake.peek<PlacementAPI>(PlacementAPIKind, ref)?.status?.databaseHostname).toBe(
      'openstack.openstack.svc',
    );
  });
});
