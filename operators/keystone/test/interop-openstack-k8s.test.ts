import { Kinds, type KubeObject } from '@stackops/lib-common/client';
import { ExternalKinds } from '@stackops/lib-common/external';
import { installCrds, waitUntil } from '@stackops/lib-common/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeystoneKinds } from '../src/api/group.js';
import { getObject, useOperator } from './support/harness.js';
import { createKeystone, isReady, waitForKeystone } from './support/keystone.js';
import { INTEROP_CRDS, mariadbOperatorReports, openstackK8sNamespace } from './support/openstack-k8s.js';

describe('KeystoneAPI in an openstack-k8s-operators shaped namespace (Galera, Memcached CRs)', () => {
  const suite = useOperator({ beforeAll, afterAll });
  beforeAll(async () => {
    await installCrds(suite.client, INTEROP_CRDS);
  });

  it('becomes Ready through MariaDBDatabase/MariaDBAccount and the Memcached CR, with no db-create Job', async () => {
    const client = suite.client;
    const ns = await suite.namespace();
    await openstackK8sNamespace(client, ns);
    await createKeystone(client, ns, { databaseInstance: 'openstack', memcachedInstance: 'memcached' });
    await mariadbOperatorReports(client, ns);
    const cr = await waitForKeystone(client, ns, 'KeystoneAPI Ready', isReady, { timeoutMs: 120_000 });

    expect(cr.status?.databaseHostname).toBe(`openstack.${ns}.svc`);
    expect(await getObject(client, Kinds.Job, ns, 'keystone-db-create')).toBeUndefined();
    const account = await getObject<KubeObject & { spec: { userName: string } }>(
      client,
      ExternalKinds.MariaDBAccount,
      ns,
      'keystone',
    );
    expect(account?.metadata.finalizers).toContain('openstack.org/keystoneapi');
    const memcached = await getObject(client, ExternalKinds.Memcached, ns, 'memcached');
    expect(memcached?.metadata.finalizers).toContain('openstack.org/keystoneapi');

    const config = await getObject<KubeObject & { data?: Record<string, string> }>(
      client,
      Kinds.Secret,
      ns,
      'keystone-config-data',
    );
    const conf = Buffer.from(config?.data?.['keystone.conf'] ?? '', 'base64').toString();
    expect(conf).toContain(`mysql+pymysql://${account?.spec.userName}:`);
    expect(conf).toContain(`@openstack.${ns}.svc/keystone?`);
    expect(conf).toMatch(/memcache_servers\s*=\s*\S*memcached-0\.memcached\.\S*memcached-1\.memcached\./);

    // Deleting the KeystoneAPI lets go of mariadb-operator's CRs (GC then deletes them with it).
    await client.delete(KeystoneKinds.KeystoneAPI, { name: 'keystone', namespace: ns });
    await waitUntil(
      'keystone finalizer off the MariaDBDatabase',
      async () => {
        const db = await client.get(ExternalKinds.MariaDBDatabase, { name: 'keystone', namespace: ns });
        return !db?.metadata.finalizers?.includes('openstack.org/keystoneapi');
      },
      { timeoutMs: 60_000 },
    );
  });
});
