import { KeystoneKinds } from '@stackops/keystone-operator';
import { type KindRef, Kinds, type KubeObject } from '@stackops/lib-common/client';
import { countWritesIn, waitUntil } from '@stackops/lib-common/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PlacementAPIKind } from '../src/api/kinds.js';
import {
  configFile,
  createPlacementAPI,
  createPrerequisites,
  getPlacementAPI,
  keystoneEndpoints,
  setKeystoneAPIStatus,
  simulateKeystoneRegistration,
  updateSecret,
  waitForCondition,
  waitForPlacement,
} from './support/fixtures.js';
import { useOperator } from './support/harness.js';

/**
 * What changes roll the API pods (CONFIG_HASH in the pod template) and what does not re-run: the
 * db-create and db-sync Jobs and the keystone registration stay as they are for every change here.
 */

type Deployment = KubeObject & {
  spec: {
    replicas: number;
    template: { spec: { containers: { env?: { name: string; value?: string }[] }[] } };
  };
  status?: { readyReplicas?: number };
};

const ReplicaSetKind: KindRef = {
  group: 'apps',
  version: 'v1',
  kind: 'ReplicaSet',
  plural: 'replicasets',
  namespaced: true,
};

const suite = useOperator({ beforeAll, afterAll }, 1);

interface Snapshot {
  configHash: string | undefined;
  replicaSets: string[];
  dbCreateUid: string | undefined;
  dbSyncUid: string | undefined;
  hashes: Record<string, string>;
  keystoneServiceGeneration: number | undefined;
}

async function snapshot(): Promise<Snapshot> {
  const client = suite.client;
  const namespace = suite.namespaces[0]!;
  const deploy = await client.get<Deployment>(Kinds.Deployment, { name: 'placement', namespace });
  const rs = await client.list(ReplicaSetKind, {
    namespace,
    labelSelector: 'service=placement',
  });
  const job = (name: string) => client.get(Kinds.Job, { name, namespace });
  const cr = await getPlacementAPI(client, namespace);
  const { input: _input, ...jobHashes } = cr?.status?.hash ?? {};
  return {
    configHash: deploy?.spec.template.spec.containers[0]?.env?.find((e) => e.name === 'CONFIG_HASH')?.value,
    replicaSets: rs.items.map((r) => r.metadata.name ?? '').sort(),
    dbCreateUid: (await job('placement-db-create'))?.metadata.uid,
    dbSyncUid: (await job('placement-db-sync'))?.metadata.uid,
    hashes: jobHashes,
    keystoneServiceGeneration: (
      await client.get(KeystoneKinds.KeystoneService, { name: 'placement', namespace })
    )?.metadata.generation,
  };
}

/** Merge-patches the PlacementAPI's spec. */
const patchSpec = (spec: Record<string, unknown>) =>
  suite.client.patch(
    PlacementAPIKind,
    { name: 'placement', namespace: suite.namespaces[0]! },
    { spec },
    'merge',
  );

/** The Jobs and the keystone registration did not run again. */
function expectNothingElseReran(before: Snapshot, after: Snapshot) {
  expect(after.dbCreateUid).toBe(before.dbCreateUid);
  expect(after.dbSyncUid).toBe(before.dbSyncUid);
  expect(after.hashes).toEqual(before.hashes);
  expect(after.keystoneServiceGeneration).toBe(before.keystoneServiceGeneration);
}

/** Waits for the Deployment to carry a CONFIG_HASH other than `old`, and for Ready again. */
async function waitForRollout(old: string | undefined): Promise<Snapshot> {
  const namespace = suite.namespaces[0]!;
  await waitUntil('a new CONFIG_HASH', async () => {
    const s = await snapshot();
    return s.configHash !== old ? s : undefined;
  });
  await waitForCondition(suite.client, namespace, 'Ready', 'True', { timeoutMs: 90_000 });
  return snapshot();
}

describe('changes of a Ready PlacementAPI', () => {
  let initial: Snapshot;

  beforeAll(async () => {
    const namespace = suite.namespaces[0]!;
    await createPrerequisites(suite.client, namespace);
    await createPlacementAPI(suite.client, namespace);
    await simulateKeystoneRegistration(suite.client, namespace);
    await waitForCondition(suite.client, namespace, 'Ready', 'True', { timeoutMs: 120_000 });
    initial = await snapshot();
    expect(initial.configHash).toBeDefined();
    expect(initial.dbCreateUid).toBeDefined();
    expect(initial.dbSyncUid).toBeDefined();
    expect(initial.replicaSets).toHaveLength(1);
  });

  it('an unchanged object is reconciled with zero writes', async () => {
    const namespace = suite.namespaces[0]!;
    const { operator, client } = suite;
    // Counted in this namespace: a file that ran before may leave namespaces finalising.
    const writes = countWritesIn(operator.manager.client, namespace);
    const reconcilesBefore = await operator.reconciles();
    // A label is not an input: it only wakes the controller up.
    await client.patch(
      PlacementAPIKind,
      { name: 'placement', namespace },
      { metadata: { labels: { poke: '1' } } },
      'merge',
    );
    await waitUntil(
      'a reconcile after the poke',
      async () => (await operator.reconciles()) > reconcilesBefore,
    );
    await new Promise((r) => setTimeout(r, 500));
    writes.stop();
    expect(writes.count()).toBe(0);
  });

  it('scaling changes the replica count only: no new pod template, no re-run', async () => {
    const namespace = suite.namespaces[0]!;
    const client = suite.client;
    await patchSpec({ replicas: 2 });
    const cr = await waitForPlacement(
      client,
      namespace,
      'readyCount 2 and Ready',
      (c) =>
        c.status?.readyCount === 2 &&
        c.status.conditions?.some((x) => x.type === 'Ready' && x.status === 'True') === true,
      { timeoutMs: 90_000 },
    );
    expect(cr.status?.readyCount).toBe(2);
    const after = await snapshot();
    expect(after.configHash).toBe(initial.configHash);
    expect(after.replicaSets).toEqual(initial.replicaSets);
    expectNothingElseReran(initial, after);
  });

  it('a customServiceConfig change rolls the pods with the new custom.conf', async () => {
    const namespace = suite.namespaces[0]!;
    const client = suite.client;
    const before = await snapshot();
    await patchSpec({ customServiceConfig: '[DEFAULT]\ndebug = false\n' });
    const after = await waitForRollout(before.configHash);
    expect(await configFile(client, namespace, 'custom.conf')).toBe('[DEFAULT]\ndebug = false\n');
    expect(after.replicaSets.length).toBeGreaterThan(before.replicaSets.length);
    expectNothingElseReran(before, after);
  });

  it('a service password change rolls the pods with the new password', async () => {
    const namespace = suite.namespaces[0]!;
    const client = suite.client;
    const before = await snapshot();
    await updateSecret(client, namespace, { PlacementPassword: 'new-service-pw' });
    const after = await waitForRollout(before.configHash);
    expect(await configFile(client, namespace, 'placement.conf')).toContain('password = new-service-pw');
    expectNothingElseReran(before, after);
  });

  it('a KeystoneAPI endpoint change rolls the pods with the new auth_url', async () => {
    const namespace = suite.namespaces[0]!;
    const client = suite.client;
    const before = await snapshot();
    const internal = `http://keystone-internal-new.${namespace}.svc:5000`;
    await setKeystoneAPIStatus(client, namespace, { ...keystoneEndpoints(namespace), internal });
    const after = await waitForRollout(before.configHash);
    expect(await configFile(client, namespace, 'placement.conf')).toContain(`auth_url = ${internal}`);
    expectNothingElseReran(before, after);
  });

  it('a nodeSelector reaches the pods and the db-sync Job, which runs again for its new pod spec', async () => {
    const namespace = suite.namespaces[0]!;
    const client = suite.client;
    const before = await snapshot();
    await patchSpec({ nodeSelector: { type: 'kwok' } });
    await waitUntil(
      'db-sync run again',
      async () => {
        const s = await snapshot();
        return s.hashes['dbsync'] !== before.hashes['dbsync'] ? s : undefined;
      },
      { timeoutMs: 90_000 },
    );
    await waitForCondition(client, namespace, 'Ready', 'True', { timeoutMs: 90_000 });
    const after = await snapshot();
    type WithNodeSelector = KubeObject & {
      spec: { template: { spec: { nodeSelector?: Record<string, string> } } };
    };
    for (const [kind, name] of [
      [Kinds.Deployment, 'placement'],
      [Kinds.Job, 'placement-db-sync'],
      [Kinds.Job, 'placement-db-create'],
    ] as const) {
      const obj = await client.get<WithNodeSelector>(kind, { name, namespace });
      expect(obj?.spec.template.spec.nodeSelector, name).toEqual({ type: 'kwok' });
    }
    expect(after.dbSyncUid).not.toBe(before.dbSyncUid);
    // The config did not change: the pods keep their CONFIG_HASH (the template changes for the selector).
    expect(after.configHash).toBe(before.configHash);
    expect(after.keystoneServiceGeneration).toBe(before.keystoneServiceGeneration);
  });
});
