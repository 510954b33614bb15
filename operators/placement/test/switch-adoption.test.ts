import { Kinds, type KubeObject, type RestKubeClient } from '@stackops/lib-common/client';
import { goOperatorHash, waitUntil } from '@stackops/lib-common/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PlacementAPI, PlacementAPIKind } from '../src/api/kinds.js';
import {
  createPlacementAPI,
  createPrerequisites,
  getPlacementAPI,
  simulateKeystoneRegistration,
  waitForPlacement,
} from './support/fixtures.js';
import { adminClient, installCrds, newNamespace, type Operator, startOperator } from './support/harness.js';

/**
 * The switch from the Go placement-operator (ADR 0048): a PlacementAPI whose status the Go operator
 * wrote (its own `status.hash.dbsync`, DBSyncReady True at the current generation) keeps its
 * db-sync run when the API Deployment runs the image the Job would run; any one of those proofs
 * missing runs the Job. The Go operator is played by writing its status while ours is stopped.
 */

type Deployment = KubeObject & {
  spec: { template: { spec: { containers: { name: string; image: string }[] } } };
  status?: { observedGeneration?: number; replicas?: number; updatedReplicas?: number };
};
const isReady = (cr: PlacementAPI): boolean =>
  cr.status?.conditions?.some((x) => x.type === 'Ready' && x.status === 'True') === true;
type EventObject = KubeObject & { reason: string; message: string };

const CASES = ['adopted', 'image differs', 'generation not observed', 'condition not True'] as const;
type Case = (typeof CASES)[number];

let client: RestKubeClient;
let operator: Operator | undefined;
const ns = new Map<Case, string>();
const dbSyncUid = new Map<Case, string | undefined>();

const job = (namespace: string) => client.get(Kinds.Job, { name: 'placement-db-sync', namespace });

/** What the Go operator leaves for each case: its hash, DBSyncReady, observedGeneration; the Job TTL-deleted. */
async function playGoOperator(c: Case, namespace: string): Promise<void> {
  const ref = { name: 'placement', namespace };
  if (c === 'image differs') {
    // The Go operator's Deployment ran another image than the one the Job would run now.
    const d = await client.get<Deployment>(Kinds.Deployment, ref);
    const containers = d!.spec.template.spec.containers.map((x) => ({
      name: x.name,
      image: `${x.image}-older`,
    }));
    await client.patch(Kinds.Deployment, ref, { spec: { template: { spec: { containers } } } }, 'strategic');
    await waitUntil('the older image rolled out', async () => {
      const now = await client.get<Deployment>(Kinds.Deployment, ref);
      const s = now?.status ?? {};
      return s.observedGeneration === now?.metadata.generation && s.updatedReplicas === s.replicas;
    });
  }
  await client.delete(
    Kinds.Job,
    { name: 'placement-db-sync', namespace },
    { propagationPolicy: 'Background' },
  );
  await waitUntil('db-sync Job gone', async () => !(await job(namespace)));
  const cr = (await getPlacementAPI(client, namespace))!;
  const generation = cr.metadata.generation ?? 1;
  const conditions = (cr.status?.conditions ?? []).map((x) =>
    x.type === 'DBSyncReady' && c === 'condition not True' ? { ...x, status: 'False', reason: 'Error' } : x,
  );
  const status = {
    ...cr.status,
    hash: { ...cr.status?.hash, dbsync: goOperatorHash(`placement-${CASES.indexOf(c) + 1}`) },
    conditions,
    observedGeneration: c === 'generation not observed' ? generation - 1 : generation,
  };
  await client.patch(PlacementAPIKind, ref, { status }, 'merge', { subresource: 'status' });
}

describe('switch from the Go placement-operator: the db-sync run adopted only when proven', () => {
  beforeAll(async () => {
    client = adminClient();
    await installCrds(client);
    for (const c of CASES) ns.set(c, await newNamespace(client, 'sw'));
    operator = await startOperator({ namespaces: [...ns.values()] });
    for (const namespace of ns.values()) {
      await createPrerequisites(client, namespace);
      await createPlacementAPI(client, namespace);
    }
    for (const namespace of ns.values()) {
      await simulateKeystoneRegistration(client, namespace);
      await waitForPlacement(client, namespace, 'Ready', isReady, { timeoutMs: 120_000 });
    }
    // The Go operator's era: ours stopped, the status as Go writes it.
    await operator.stop();
    operator = undefined;
    for (const [c, namespace] of ns) await playGoOperator(c, namespace);
    operator = await startOperator({ namespaces: [...ns.values()] });
    for (const [c, namespace] of ns) {
      await waitForPlacement(
        client,
        namespace,
        'db-sync hash of ours and Ready',
        (cr) => cr.status?.hash?.['dbsync']?.length === 54 && isReady(cr),
        { timeoutMs: 90_000 },
      );
      dbSyncUid.set(c, (await job(namespace))?.metadata.uid);
    }
  }, 300_000);

  afterAll(async () => {
    operator ??= await startOperator({ namespaces: [...ns.values()] });
    for (const namespace of ns.values())
      await client.delete(Kinds.Namespace, { name: namespace }).catch(() => false);
    await waitUntil(
      'PlacementAPIs deleted',
      async () => {
        for (const namespace of ns.values())
          if ((await client.list(PlacementAPIKind, { namespace })).items.length > 0) return false;
        return true;
      },
      { timeoutMs: 30_000 },
    ).catch(() => undefined);
    await operator.stop();
    client.close();
  });

  it('all proofs hold: no Job, our hash recorded, the adoption in the condition and an Event', async () => {
    const namespace = ns.get('adopted')!;
    expect(dbSyncUid.get('adopted')).toBeUndefined();
    const cr = await getPlacementAPI(client, namespace);
    expect(cr?.status?.conditions?.find((x) => x.type === 'DBSyncReady')).toMatchObject({
      status: 'True',
      message: "adopted from the previous operator's run",
    });
    const events = await client.list<EventObject>(Kinds.Event, { namespace });
    expect(events.items.map((e) => `${e.reason}: ${e.message}`)).toContain(
      "JobRunAdopted: Job placement-db-sync: adopted from the previous operator's run, not run again",
    );
    // Later passes keep the adopted hash: still no Job (a label only wakes the controller).
    const hash = cr?.status?.hash?.['dbsync'];
    await client.patch(
      PlacementAPIKind,
      { name: 'placement', namespace },
      { metadata: { labels: { poke: '1' } } },
      'merge',
    );
    await new Promise((r) => setTimeout(r, 1_000));
    expect((await getPlacementAPI(client, namespace))?.status?.hash?.['dbsync']).toBe(hash);
    expect(await job(namespace)).toBeUndefined();
  });

  it.each(['image differs', 'generation not observed', 'condition not True'] as const)(
    '%s: the db-sync Job runs again',
    async (c) => {
      const namespace = ns.get(c)!;
      expect(dbSyncUid.get(c)).toBeDefined();
      const cr = await getPlacementAPI(client, namespace);
      expect(cr?.status?.conditions?.find((x) => x.type === 'DBSyncReady')?.message).not.toContain('adopted');
      const events = await client.list<EventObject>(Kinds.Event, { namespace });
      expect(events.items.filter((e) => e.reason === 'JobRunAdopted')).toEqual([]);
    },
  );
});
