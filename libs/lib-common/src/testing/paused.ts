import type { KindRef } from '../client/kinds.js';
import { Kinds } from '../client/kinds.js';
import type { KubeClient, KubeObject, ObjectRef } from '../client/types.js';
import { PAUSED_ANNOTATION, PAUSED_CONDITION, RESUMED_REASON } from '../pipeline/paused.js';
import { waitUntil } from './wait.js';
import { countWritesIn } from './writes.js';

export interface PausedRoundTrip {
  /** The test's client (it sets and removes the annotation, edits the operand). */
  client: KubeClient;
  /** The running operator's client: its writes are counted while the object is paused. */
  operatorClient: KubeClient;
  kind: KindRef;
  ref: ObjectRef;
  /** Where the operator writes for this object: its namespace and its operands' (cluster scope: `undefined`). */
  namespaces: readonly (string | undefined)[];
  /** Edits one of the object's operands the way a user would during maintenance. */
  edit(): Promise<void>;
  /** Whether that edit is still there. */
  edited(): Promise<boolean>;
  /** The annotation's value (default `"true"`). */
  value?: string;
  /** How long passes get to happen while paused (default 3 s). */
  windowMs?: number;
  timeoutMs?: number;
}

export interface PausedOutcome {
  /** The operator's writes from the Paused condition on until the annotation went. */
  writesWhilePaused: number;
  /** The operand edit still there at the end of the window (the edit and a label on the object each wake a pass). */
  editKeptWhilePaused: boolean;
  /** The status's other fields and conditions unchanged by the pause (the Paused condition aside). */
  statusKept: boolean;
  /** Events on the object with reason Paused / Resumed. */
  pausedEvents: number;
  resumedEvents: number;
  /** The edit undone and the Paused condition gone after the annotation was removed (else what was seen). */
  restored: true | string;
}

type WithStatus = KubeObject & { status?: { conditions?: { type: string; status: string }[] } };

const withoutPaused = (o: WithStatus | undefined) =>
  JSON.stringify({
    ...o?.status,
    conditions: (o?.status?.conditions ?? []).filter((c) => c.type !== PAUSED_CONDITION),
  });
const pausedCondition = (o: WithStatus | undefined) =>
  o?.status?.conditions?.find((c) => c.type === PAUSED_CONDITION && c.status === 'True');

/**
 * Pauses a reconciled object with the `openstack.org/paused` annotation against a real API server
 * and a running operator: waits for the Paused condition, edits an operand and touches the object
 * (each wakes a pass), counts the operator's writes meanwhile, then removes the annotation and
 * waits for the operand to be put back. Returns what it saw; the test asserts.
 */
export async function pausedRoundTrip(t: PausedRoundTrip): Promise<PausedOutcome> {
  const timeoutMs = t.timeoutMs ?? 30_000;
  const get = () => t.client.get<WithStatus>(t.kind, t.ref);
  const annotate = (value: string | null) =>
    t.client.patch(t.kind, t.ref, { metadata: { annotations: { [PAUSED_ANNOTATION]: value } } }, 'merge');
  const before = await get();
  const eventReasons = async () => {
    const events = await t.client.list<KubeObject & { reason?: string; involvedObject?: { uid?: string } }>(
      Kinds.Event,
      { namespace: t.ref.namespace ?? 'default' },
    );
    return events.items.filter((e) => e.involvedObject?.uid === before?.metadata.uid).map((e) => e.reason);
  };
  await annotate(t.value ?? 'true');
  const paused = await waitUntil(
    'the Paused condition',
    async () => {
      const o = await get();
      return pausedCondition(o) ? o : undefined;
    },
    { timeoutMs },
  );
  // The Paused Event follows the status write without waiting for it: counting before it arrived
  // would count that Event as a write made while paused.
  await waitUntil(
    'the Paused Event',
    async () => ((await eventReasons()).includes(PAUSED_CONDITION) ? true : undefined),
    {
      timeoutMs: 10_000,
    },
  ).catch(() => undefined);
  const counters = t.namespaces.map((ns) => countWritesIn(t.operatorClient, ns));
  let writesWhilePaused = 0;
  try {
    await t.edit();
    await t.client.patch(t.kind, t.ref, { metadata: { labels: { 'paused-test/touched': 'yes' } } }, 'merge');
    await new Promise((r) => setTimeout(r, t.windowMs ?? 3_000));
  } finally {
    for (const c of [...counters].reverse()) {
      writesWhilePaused += c.count();
      c.stop();
    }
  }
  const editKeptWhilePaused = await t.edited();
  const after = await get();
  const statusKept =
    withoutPaused(after) === withoutPaused(before) && withoutPaused(paused) === withoutPaused(before);
  await annotate(null);
  const restored = await waitUntil(
    'the edit undone and Paused gone',
    async () => (!(await t.edited()) && !pausedCondition(await get()) ? true : undefined),
    { timeoutMs },
  ).catch(
    async () =>
      `not restored: edit ${(await t.edited()) ? 'kept' : 'undone'}, conditions ${JSON.stringify((await get())?.status?.conditions)}`,
  );
  // Events are sent after the status write, without waiting: give the Resumed one a moment.
  const reasons = await waitUntil(
    'the Paused and Resumed Events',
    async () => {
      const r = await eventReasons();
      return r.includes(RESUMED_REASON) ? r : undefined;
    },
    { timeoutMs: 10_000 },
  ).catch(() => [] as (string | undefined)[]);
  return {
    writesWhilePaused,
    editKeptWhilePaused,
    statusKept,
    pausedEvents: reasons.filter((r) => r === PAUSED_CONDITION).length,
    resumedEvents: reasons.filter((r) => r === RESUMED_REASON).length,
    restored,
  };
}

/** What `pausedRoundTrip` sees when the operator honours the annotation as documented (ADR 0036). */
export const PAUSED_AS_DOCUMENTED: PausedOutcome = {
  writesWhilePaused: 0,
  editKeptWhilePaused: true,
  statusKept: true,
  pausedEvents: 1,
  resumedEvents: 1,
  restored: true,
};

/** The operand edit of a round trip: a Deployment the operator renders with one replica scaled to 3. */
export function scaledDeployment(
  client: KubeClient,
  ref: ObjectRef,
): Pick<PausedRoundTrip, 'edit' | 'edited'> {
  const replicas = async () =>
    (await client.get<KubeObject & { spec?: { replicas?: number } }>(Kinds.Deployment, ref))?.spec?.replicas;
  return {
    edit: async () => void (await client.patch(Kinds.Deployment, ref, { spec: { replicas: 3 } }, 'merge')),
    edited: async () => (await replicas()) === 3,
  };
}
