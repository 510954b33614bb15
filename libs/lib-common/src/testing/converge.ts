import { apiErrorFromResponse } from '../client/errors.js';
import type { KindRef } from '../client/kinds.js';
import type { KubeObject, ObjectRef } from '../client/types.js';
import type { ReconcileResult, Reconciler } from '../runtime/controller.js';
import { type ConditionView, conditionOf } from './conditions.js';
import { simulateControllerManager } from './controller-manager.js';
import { type FakeKubeClient, type FakeRequest, type RecordedEvent, reconcileOnce } from './fake.js';

export interface ConvergeOptions {
  /** How many passes at most (default 16). */
  passes?: number;
  /** The condition that must turn True (default Ready). */
  until?: string;
  /** What happens between two passes (default `simulateControllerManager`: Jobs succeed, Deployments roll out). */
  settle?: (fake: FakeKubeClient) => Promise<void>;
}

/**
 * Reconciles the stored object on the fake until its `until` condition is True, letting Jobs and
 * Deployments finish in between; resolves with the last pass, throws with the condition when the
 * passes ran out.
 */
export async function convergeOnFake<T extends KubeObject>(
  fake: FakeKubeClient,
  kind: KindRef,
  ref: ObjectRef,
  reconciler: Reconciler<T>,
  opts: ConvergeOptions = {},
): Promise<{ result: ReconcileResult; events: RecordedEvent[] }> {
  const until = opts.until ?? 'Ready';
  const passes = opts.passes ?? 16;
  const settle = opts.settle ?? simulateControllerManager;
  for (let i = 0; ; i++) {
    const last = await reconcileOnce(fake, kind, ref, reconciler);
    const c = conditionOf(fake.peek(kind, ref), until);
    if (c?.status === 'True') return last;
    if (i + 1 >= passes)
      throw new Error(`${until} not True after ${passes} passes: ${JSON.stringify(c ?? null)}`);
    await settle(fake);
  }
}

/** An API server error no step expects (etcd timed out): a 500 the failure table tells as InternalError. */
export const serverError = (): Error =>
  apiErrorFromResponse(
    500,
    { kind: 'Status', reason: 'InternalError', message: 'etcdserver: request timed out', code: 500 },
    { verb: 'PATCH', path: '/' },
  );

export interface StepFailureOptions<T extends KubeObject> {
  /** A fresh world in which the object converges (called twice: the reference run and the failing one). */
  world: () => FakeKubeClient | Promise<FakeKubeClient>;
  kind: KindRef;
  ref: ObjectRef;
  reconciler: () => Reconciler<T>;
  /** The request that fails (`FakeKubeClient.failOn`), e.g. the step's first write. */
  failOn: Partial<FakeRequest>;
  error?: unknown;
  passes?: number;
  /** What happens between two passes (default `simulateControllerManager`). */
  settle?: (fake: FakeKubeClient) => Promise<void>;
}

/** What one pass that hit an API error did to the conditions. */
export interface StepFailure {
  /** The conditions after the failing pass. */
  conditions: ConditionView[];
  /**
   * The types (Ready aside) whose state differs from the same pass without the failure, leaving
   * out those the failing pass did not reach (still Unknown/Init).
   */
  changed: string[];
}

const state = (c: ConditionView | undefined) =>
  c ? `${c.status}/${c.reason ?? ''}/${c.severity ?? ''}/${c.message ?? ''}` : 'absent';

/**
 * Drives the object into an API error: two identical worlds are reconciled in lockstep (settled
 * in between), one with `failOn`; at the pass that throws, the conditions are compared with the
 * other world's after the same pass. For the test that a failure lands on its step's condition and
 * changes nothing else.
 */
export async function stepFailure<T extends KubeObject>(opts: StepFailureOptions<T>): Promise<StepFailure> {
  const reference = await opts.world();
  const failing = (await opts.world()).failOn(opts.failOn, opts.error ?? serverError());
  const a = opts.reconciler();
  const b = opts.reconciler();
  for (let i = 0; i < (opts.passes ?? 16); i++) {
    await reconcileOnce(reference, opts.kind, opts.ref, a);
    const threw = await reconcileOnce(failing, opts.kind, opts.ref, b).then(
      () => false,
      () => true,
    );
    if (threw) {
      const after = failing.peek<KubeObject>(opts.kind, opts.ref);
      const expected = reference.peek<KubeObject>(opts.kind, opts.ref);
      const conditions = ((after?.['status'] as { conditions?: ConditionView[] })?.conditions ?? []).map(
        (c) => ({ ...c }),
      );
      const types = new Set([
        ...conditions.map((c) => c.type),
        ...((expected?.['status'] as { conditions?: ConditionView[] })?.conditions ?? []).map((c) => c.type),
      ]);
      const changed = [...types].filter((t) => {
        if (t === 'Ready') return false;
        const mine = conditionOf(after, t);
        if (mine?.status === 'Unknown' && mine.reason === 'Init') return false;
        return state(mine) !== state(conditionOf(expected, t));
      });
      return { conditions, changed };
    }
    const settle = opts.settle ?? simulateControllerManager;
    await settle(reference);
    await settle(failing);
  }
  throw new Error(`no pass failed on ${JSON.stringify(opts.failOn)} in ${opts.passes ?? 16} passes`);
}
