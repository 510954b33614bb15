import { Kinds, type KubeClient, type KubeObject } from '@stackops/lib-common/client';
import { goOperatorHash, waitUntil } from '@stackops/lib-common/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeystoneKinds } from '../src/api/group.js';
import type { KeystoneAPI } from '../src/api/keystone-api.js';
import { adminClient, installCrds, newNamespace, type Operator, startOperator } from './support/harness.js';
import {
  createDatabaseService,
  createInputSecret,
  createKeystone,
  createMemcachedService,
  waitForKeystone,
  waitForKeystoneReady,
} from './support/keystone.js';

/**
 * The switch from the Go keystone-operator (ADR 0048), played by writing the status the Go operator
 * leaves while ours is stopped: each of db-sync and bootstrap is adopted on its own proof, so with
 * BootstrapReady not True only the bootstrap Job runs again.
 */

const JOBS = ['keystone-db-sync', 'keystone-bootstrap'] as const;
let client: KubeClient;
let operator: Operator | undefined;
let adopted: string;
let bootstrapNotTrue: string;
type EventObject = KubeObject & { reason: string; message: string };

const jobUids = async (ns: string) =>
  Promise.all(JOBS.map(async (name) => (await client.get(Kinds.Job, { name, namespace: ns }))?.metadata.uid));

async function playGoOperator(ns: string, bootstrapReady: boolean): Promise<void> {
  for (const name of JOBS)
    await client.delete(Kinds.Job, { name, namespace: ns }, { propagationPolicy: 'Background' });
  await waitUntil('the Jobs gone (TTL)', async () => (await jobUids(ns)).every((u) => u === undefined));
  const ref = { name: 'keystone', namespace: ns };
  const cr = (await client.get<KeystoneAPI>(KeystoneKinds.KeystoneAPI, ref))!;
  const conditions = (cr.status?.conditions ?? []).map((c) =>
    c.type === 'BootstrapReady' && !bootstrapReady ? { ...c, status: 'False', reason: 'Error' } : c,
  );
  const hash = {
    ...cr.status?.hash,
    dbsync: goOperatorHash('keystone-db-sync'),
    bootstrap: goOperatorHash('keystone-bootstrap'),
  };
  await client.patch(
    KeystoneKinds.KeystoneAPI,
    ref,
    { status: { ...cr.status, hash, conditions } },
    'merge',
    {
      subresource: 'status',
    },
  );
}

describe('switch from the Go keystone-operator: db-sync and bootstrap runs adopted on their own proofs', () => {
  beforeAll(async () => {
    client = adminClient();
    await installCrds(client);
    adopted = await newNamespace(client, 'sw');
    bootstrapNotTrue = await newNamespace(client, 'sw');
    operator = await startOperator({ namespaces: [adopted, bootstrapNotTrue] });
    for (const ns of [adopted, bootstrapNotTrue]) {
      await createInputSecret(client, ns);
      await createDatabaseService(client, ns);
      await createMemcachedService(client, ns);
      await createKeystone(client, ns);
    }
    for (const ns of [adopted, bootstrapNotTrue]) await waitForKeystoneReady(client, ns);
    await operator.stop();
    operator = undefined;
    await playGoOperator(adopted, true);
    await playGoOperator(bootstrapNotTrue, false);
    operator = await startOperator({ namespaces: [adopted, bootstrapNotTrue] });
    for (const ns of [adopted, bootstrapNotTrue])
      await waitForKeystone(
        client,
        ns,
        'both hashes ours and Ready',
        (cr) =>
          JOBS.every((_, i) => cr.status?.hash?.[i === 0 ? 'dbsync' : 'bootstrap']?.length === 54) &&
          cr.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true,
        { timeoutMs: 90_000 },
      );
  }, 300_000);

  afterAll(async () => {
    operator ??= await startOperator({ namespaces: [adopted, bootstrapNotTrue] });
    for (const ns of [adopted, bootstrapNotTrue])
      await client.delete(Kinds.Namespace, { name: ns }).catch(() => false);
    await operator.stop();
  });

  it('all proofs hold: neither Job runs, both conditions and Events say adopted', async () => {
    expect(await jobUids(adopted)).toEqual([undefined, undefined]);
    const cr = await client.get<KeystoneAPI>(KeystoneKinds.KeystoneAPI, {
      name: 'keystone',
      namespace: adopted,
    });
    for (const type of ['DBSyncReady', 'BootstrapReady'])
      expect(cr?.status?.conditions?.find((c) => c.type === type)).toMatchObject({
        status: 'True',
        message: "adopted from the previous operator's run",
      });
    const events = await client.list<EventObject>(Kinds.Event, { namespace: adopted });
    expect(events.items.filter((e) => e.reason === 'JobRunAdopted').map((e) => e.message)).toEqual(
      expect.arrayContaining(
        JOBS.map((j) => `Job ${j}: adopted from the previous operator's run, not run again`),
      ),
    );
  });

  it('BootstrapReady not True: db-sync adopted, bootstrap runs again', async () => {
    const [dbSync, bootstrap] = await jobUids(bootstrapNotTrue);
    expect(dbSync).toBeUndefined();
    expect(bootstrap).toBeDefined();
  });
});
