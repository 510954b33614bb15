import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Kinds } from '../src/client/kinds.js';
import { type Lease, microTime } from '../src/runtime/leader.js';
import type { Manager } from '../src/runtime/manager.js';
import { startTestManager } from '../src/testing/manager.js';
import { useTestNamespace } from '../src/testing/namespace.js';
import { eventually, waitFor } from '../src/testing/wait.js';
import { addGreetingController, type Greeting, GreetingKind, greeting } from './support/greeting.js';

const crds = fileURLToPath(new URL('./fixtures/crds', import.meta.url));
const LEASE_MS = 4000;
const env = useTestNamespace({ beforeAll, afterAll, beforeEach, afterEach }, { prefix: 'runtime-le', crds });
let managers: Manager[];

/** Every reconcile, by replica, with its start and end (to prove two replicas never overlap). */
interface Run {
  replica: string;
  key: string;
  start: number;
  end: number;
}
let runs: Run[];

async function startReplica(replica: string, releaseOnCancel = true): Promise<Manager> {
  const m = await startTestManager(
    {
      name: 'greeting-operator',
      namespaces: [env.ns.name],
      leaderElection: {
        namespace: env.ns.name,
        leaseName: 'greeting-operator-leader',
        identity: replica,
        leaseDurationMs: LEASE_MS,
        renewDeadlineMs: 3000,
        retryPeriodMs: 1000,
        releaseOnCancel,
      },
    },
    (mgr) => {
      addGreetingController(mgr, {
        onReconciled: (key, start, end) => runs.push({ replica, key, start, end }),
      });
    },
  );
  managers.push(m);
  return m;
}

const isReady = (g: Greeting | undefined): boolean =>
  (g?.status?.conditions as { type: string; status: string }[] | undefined)?.some(
    (c) => c.type === 'Ready' && c.status === 'True',
  ) === true;

const create = (name: string) => env.admin.create(GreetingKind, greeting(env.ns.name, name));

beforeEach(async () => {
  managers = [];
  runs = [];
});
afterEach(async () => {
  await Promise.all(managers.map((m) => m.stop()));
});

describe('leader election', () => {
  it('lets exactly one replica reconcile, and hands over within the lease duration on shutdown', async () => {
    const a = await startReplica('replica-a');
    const b = await startReplica('replica-b');
    const leader = await eventually(() => {
      const leaders = [a, b].filter((m) => m.isLeader());
      if (leaders.length !== 1) throw new Error(`${leaders.length} leaders`);
      return leaders[0] as Manager;
    });
    const standby = leader === a ? b : a;
    for (const n of ['one', 'two', 'three']) await create(n);
    for (const n of ['one', 'two', 'three'])
      await waitFor<Greeting>(env.admin, GreetingKind, { namespace: env.ns.name, name: n }, isReady);
    // The standby has a warm cache but sent no write.
    expect(standby.cache.list(GreetingKind)).toHaveLength(3);
    expect(standby.client.requests.writes()).toBe(0);
    expect(standby.controllerNamed('greeting')?.running).toBe(false);
    expect(leader.client.requests.writes()).toBeGreaterThan(0);

    const stoppedAt = Date.now();
    await leader.stop();
    const lease = await env.admin.get<Lease>(Kinds.Lease, {
      namespace: env.ns.name,
      name: 'greeting-operator-leader',
    });
    expect(lease?.spec?.holderIdentity ?? '').not.toBe(leader === a ? 'replica-a' : 'replica-b');
    await eventually(() => {
      if (!standby.isLeader()) throw new Error('standby not leading yet');
    });
    expect(Date.now() - stoppedAt).toBeLessThan(LEASE_MS);
    await create('four');
    await waitFor<Greeting>(env.admin, GreetingKind, { namespace: env.ns.name, name: 'four' }, isReady);
    expect(standby.client.requests.writes()).toBeGreaterThan(0);
    // No double reconcile: every run of the old leader ended before the new leader's first began.
    const oldName = leader === a ? 'replica-a' : 'replica-b';
    const oldRuns = runs.filter((r) => r.replica === oldName);
    const newRuns = runs.filter((r) => r.replica !== oldName);
    expect(oldRuns.length).toBeGreaterThan(0);
    expect(newRuns.length).toBeGreaterThan(0);
    expect(Math.max(...oldRuns.map((r) => r.end))).toBeLessThanOrEqual(
      Math.min(...newRuns.map((r) => r.start)),
    );
    expect(newRuns.some((r) => r.key.endsWith('/four'))).toBe(true);
  });

  it('hands over within the lease duration when the leader vanishes without releasing', async () => {
    const a = await startReplica('replica-a', false);
    await eventually(() => {
      if (!a.isLeader()) throw new Error('not leading yet');
    });
    const b = await startReplica('replica-b', false);
    await new Promise((r) => setTimeout(r, 1500));
    expect(b.isLeader()).toBe(false);
    const stoppedAt = Date.now();
    await a.stop();
    await eventually(() => {
      if (!b.isLeader()) throw new Error('standby not leading yet');
    });
    const took = Date.now() - stoppedAt;
    // it must wait out the lease (not released), but not much longer: one retry period of slack
    expect(took).toBeGreaterThan(LEASE_MS - 1500);
    expect(took).toBeLessThan(LEASE_MS + 2500);
    await create('after');
    await waitFor<Greeting>(env.admin, GreetingKind, { namespace: env.ns.name, name: 'after' }, isReady);
  });

  it('stops reconciling at once when the lease is taken away, and takes it back when it expires', async () => {
    const a = await startReplica('replica-a');
    await eventually(() => {
      if (!a.isLeader()) throw new Error('not leading yet');
    });
    const ref = { namespace: env.ns.name, name: 'greeting-operator-leader' };
    const lease = await env.admin.get<Lease>(Kinds.Lease, ref);
    const now = microTime(new Date());
    const stolenAt = Date.now();
    await env.admin.replace<Lease>(Kinds.Lease, {
      ...(lease as Lease),
      spec: {
        ...lease?.spec,
        holderIdentity: 'intruder',
        leaseDurationSeconds: 6,
        acquireTime: now,
        renewTime: now,
      },
    });
    await eventually(
      () => {
        if (a.isLeader()) throw new Error('still leading');
      },
      { intervalMs: 20 },
    );
    expect(Date.now() - stolenAt).toBeLessThan(2500);
    expect(a.controllerNamed('greeting')?.running).toBe(false);
    const writesBefore = a.client.requests.writes();
    await create('orphan');
    await new Promise((r) => setTimeout(r, 2000));
    expect(a.client.requests.writes()).toBe(writesBefore);
    expect(
      (await env.admin.get<Greeting>(GreetingKind, { namespace: env.ns.name, name: 'orphan' }))?.status,
    ).toBeUndefined();
    // The intruder never renews: after its 6 s the replica takes the lease back and catches up.
    await waitFor<Greeting>(env.admin, GreetingKind, { namespace: env.ns.name, name: 'orphan' }, isReady, {
      timeoutMs: 20_000,
    });
    expect(a.isLeader()).toBe(true);
    expect(Date.now() - stolenAt).toBeGreaterThanOrEqual(6000);
  });
});
