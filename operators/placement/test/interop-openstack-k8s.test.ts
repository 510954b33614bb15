import { fileURLToPath } from 'node:url';
import { Kinds, type KubeObject, type RestKubeClient } from '@stackops/lib-common/client';
import { ExternalKinds } from '@stackops/lib-common/external';
import { galeraDatabase, installCrds, waitUntil } from '@stackops/lib-common/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  configFile,
  createPlacementAPI,
  createReadyKeystoneAPI,
  createSecret,
  simulateKeystoneRegistration,
  waitForCondition,
} from './support/fixtures.js';
import { useOperator } from './support/harness.js';

// mariadb-operator's CRDs as tools/crd-types describes them (ADR 0013).
const INTEROP_CRDS = fileURLToPath(new URL('../../../tools/crd-types/crds/', import.meta.url));
const now = () => new Date().toISOString();

const suite = useOperator({ beforeAll, afterAll }, 1);
beforeAll(async () => {
  await installCrds(suite.client, INTEROP_CRDS);
});

/** Plays mariadb-operator once placement's CRs exist: their Ready conditions on the status. */
async function mariadbOperatorReports(client: RestKubeClient, ns: string) {
  for (const [kind, type] of [
    [ExternalKinds.MariaDBDatabase, 'MariaDBDatabaseReady'],
    [ExternalKinds.MariaDBAccount, 'MariaDBAccountReady'],
  ] as const) {
    await waitUntil(`${kind.kind} placement`, () => client.get(kind, { name: 'placement', namespace: ns }), {
      timeoutMs: 60_000,
    });
    await client.patch(
      kind,
      { name: 'placement', namespace: ns },
      { status: { conditions: [{ type, status: 'True', lastTransitionTime: now() }] } },
      'merge',
      { subresource: 'status' },
    );
  }
}

describe('PlacementAPI in an openstack-k8s-operators shaped namespace (Galera CR)', () => {
  it('becomes Ready through MariaDBDatabase/MariaDBAccount with no db-create Job, connecting as the account', async () => {
    const client = suite.client;
    const ns = suite.namespaces[0]!;
    await createSecret(client, ns);
    await galeraDatabase(client, ns);
    await createReadyKeystoneAPI(client, ns);
    await createPlacementAPI(client, ns);
    await mariadbOperatorReports(client, ns);
    await simulateKeystoneRegistration(client, ns);
    const ready = await waitForCondition(client, ns, 'Ready', 'True', { timeoutMs: 120_000 });

    expect(ready.status?.databaseHostname).toBe(`openstack.${ns}.svc`);
    expect(await client.get(Kinds.Job, { name: 'placement-db-create', namespace: ns })).toBeUndefined();
    const account = await client.get<KubeObject & { spec: { userName: string } }>(
      ExternalKinds.MariaDBAccount,
      {
        name: 'placement',
        namespace: ns,
      },
    );
    expect(account?.metadata.finalizers).toContain('openstack.org/placementapi');
    expect(await configFile(client, ns, 'placement.conf')).toContain(
      `mysql+pymysql://${account?.spec.userName}:`,
    );
  });
});
