import { operatorOnRealNodeValues } from '@stackops/demo/real-node';
import { KeystoneAPIKind, OPENSTACK_NAMESPACE } from '@stackops/demo/targets';
import { Kinds, type KubeObject } from '@stackops/lib-common/client';
import { waitFor, waitForDeletion } from '@stackops/lib-common/testing';
import { afterAll, describe, expect, it } from 'vitest';
import {
  adminClient,
  applyExample,
  cleanUp,
  deleteNamespaces,
  expectRunsForReal,
  helmInstall,
  type PodShape,
  readyPods,
  scrapeMetrics,
  waitForCondition,
} from './support.js';

/**
 * Two replicas of keystone-operator on the real node (the chart turns leader election on with more
 * than one): one holds the Lease and reconciles; deleting its pod, as a rollout or a drain does, hands
 * the Lease to another replica within the lease duration, and the new leader reconciles.
 */
const client = adminClient();
const release = 'keystone-ha';
const namespace = 'e2e-leader';
const leaseRef = { namespace, name: 'keystone-operator-leader' };
type Lease = KubeObject & { spec?: { holderIdentity?: string; leaseDurationSeconds?: number } };

const sample = { kind: KeystoneAPIKind, namespace: OPENSTACK_NAMESPACE, name: 'keystone' };

afterAll(async () => {
  await cleanUp(client, [sample], [{ release, namespace }]);
  await deleteNamespaces(client, [namespace, OPENSTACK_NAMESPACE]);
  client.close();
});

/** The identity is `<hostname>_<uuid>`, and a pod's hostname is its name. */
const holds = (lease: Lease | undefined, pod: PodShape) =>
  lease?.spec?.holderIdentity?.startsWith(`${pod.metadata.name}_`) ?? false;

async function masterStatus(pod: PodShape): Promise<number | undefined> {
  const { body } = await scrapeMetrics(pod.status?.podIP, namespace, release);
  const m = body.match(/^leader_election_master_status\{name="keystone-operator"\} (\d+)/m);
  return m ? Number(m[1]) : undefined;
}

describe('two replicas with leader election', () => {
  it('one leads; deleting its pod hands over within the lease duration; the new leader reconciles', async () => {
    await helmInstall(release, 'keystone-operator', namespace, { ...operatorOnRealNodeValues, replicas: 2 });
    const pods = await readyPods(client, namespace, release, 2);
    for (const p of pods) expect(expectRunsForReal(p, 'keystone')).toEqual([]);

    const lease = await waitFor<Lease>(client, Kinds.Lease, leaseRef, (l) => pods.some((p) => holds(l, p)), {
      timeoutMs: 60_000,
    });
    const leader = pods.find((p) => holds(lease, p))!;
    const leaseMs = (lease?.spec?.leaseDurationSeconds ?? 0) * 1000;
    expect(leaseMs).toBeGreaterThan(0);
    expect(await masterStatus(leader)).toBe(1);
    // The standby exports the series too, at 0.
    const standby = pods.find((p) => p !== leader)!;
    expect(await masterStatus(standby)).toBe(0);

    const deleted = Date.now();
    await client.delete(Kinds.Pod, { namespace, name: leader.metadata.name! });
    // The leader releases the Lease as it stops; the standby, or the replacement pod if it starts
    // first, takes it: any replica but the deleted one.
    const handedOver = await waitFor<Lease>(
      client,
      Kinds.Lease,
      leaseRef,
      (l) => Boolean(l?.spec?.holderIdentity) && !holds(l, leader),
      { timeoutMs: leaseMs + 30_000, intervalMs: 200 },
    );
    const tookMs = Date.now() - deleted;
    expect(tookMs, `handover took ${tookMs} ms`).toBeLessThan(leaseMs);
    const after = await readyPods(client, namespace, release, 2);
    const newLeader = after.find((p) => holds(handedOver, p));
    expect(
      newLeader,
      `holder ${handedOver?.spec?.holderIdentity} is a Ready pod of the release`,
    ).toBeDefined();
    expect(newLeader!.metadata.name).not.toBe(leader.metadata.name);
    expect(await masterStatus(newLeader!)).toBe(1);

    // The new leader does the work.
    await applyExample('00-openstack-prereqs.yaml', OPENSTACK_NAMESPACE);
    await applyExample('10-keystoneapi.yaml', OPENSTACK_NAMESPACE);
    await waitForCondition(client, sample.kind, sample, 'Ready', 'True');
    await client.delete(sample.kind, sample);
    await waitForDeletion(client, sample.kind, sample, { timeoutMs: 120_000 });
  });
});
