import { Kinds, type KubeClient, type KubeObject } from '@stackops/lib-common/resources';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  adminClient,
  getObject,
  installCrds,
  newNamespace,
  type Operator,
  startOperator,
} from './support/harness.js';
import {
  createDatabaseService,
  createInputSecret,
  createKeystoneFromFixture,
  isReady,
  waitForKeystone,
} from './support/keystone.js';

describe('the seed README examples, applied as written', () => {
  let client: KubeClient;
  let operator: Operator;
  const namespaces: string[] = [];

  beforeAll(async () => {
    client = adminClient();
    await installCrds(client);
    operator = await startOperator();
  });
  afterAll(async () => {
    await operator?.stop();
    for (const ns of namespaces) await client.delete(Kinds.Namespace, { name: ns });
  });

  async function prepared(): Promise<string> {
    const ns = await newNamespace(client);
    namespaces.push(ns);
    await createInputSecret(client, ns);
    await createDatabaseService(client, ns);
    return ns;
  }

  it('API Example: the KeystoneAPI becomes Ready with its endpoints published', async () => {
    const ns = await prepared();
    await createKeystoneFromFixture(client, ns, 'seed/keystoneapi-basic.yaml');
    const cr = await waitForKeystone(client, ns, 'KeystoneAPI Ready', isReady, { timeoutMs: 90_000 });
    expect(cr.status?.apiEndpoints).toEqual({
      internal: `http://keystone-internal.${ns}.svc:5000`,
      public: `http://keystone-public.${ns}.svc:5000`,
    });
    expect(cr.status).toMatchObject({
      readyCount: 1,
      databaseHostname: `openstack.${ns}.svc`,
      region: 'regionOne',
    });
    expect(cr.metadata.finalizers).toContain('openstack.org/keystoneapi');
    const deploy = await getObject(client, Kinds.Deployment, ns, 'keystone');
    expect(deploy).toBeDefined();
    for (const job of ['keystone-db-create', 'keystone-db-sync', 'keystone-bootstrap']) {
      const j = await getObject<KubeObject & { status?: { succeeded?: number } }>(client, Kinds.Job, ns, job);
      expect(j?.status?.succeeded, job).toBe(1);
    }
  });
});
