import type { Conditions } from '../conditions/index.js';

/**
 * What a step says: `undefined` (or nothing) goes on to the next step; `stop()` ends this pass,
 * `stop(ms)` ends it and asks to run again after `ms` (waiting for something with no watch).
 */
export type StepResult = undefined | { stop: true; requeueAfterMs?: number };

/**
 * One step of a reconcile: reads what it needs, writes what it owns, marks its condition, and
 * either lets the pass go on or ends it. It must be idempotent: a crash may repeat it at any point.
 * Invalid input is a condition (and a `stop`), or a thrown `ReconcileError`/`TerminalError`.
 */
export type Step<C> = ((
  ctx: C,
  // biome-ignore lint/suspicious/noConfusingVoidType: steps written as `async (ctx) => { … }` continue
) => StepResult | void | Promise<StepResult | void>) & {
  /** The condition this step reports (see `reports`): where the pipeline records its failure. */
  readonly reports?: string;
};

/**
 * Declares the condition a step reports. When the step throws without turning a condition False
 * itself, the pipeline records the failure on this one (a step that declares none fails Ready), so
 * where a failure lands never depends on the order conditions are listed in. The step keeps its name.
 */
export function reports<C>(condition: string, step: Step<C>): Step<C> {
  const run = { [step.name]: (ctx: C) => step(ctx) }[step.name] as Step<C>;
  return Object.assign(run, { reports: condition });
}

/** Ends the pass; with `requeueAfterMs`, runs it again after that long (sooner on any change). */
export const stop = (requeueAfterMs?: number): StepResult =>
  requeueAfterMs === undefined ? { stop: true } : { stop: true, requeueAfterMs };

/** How a run of steps ended. */
export interface StepsOutcome {
  /** The name of the step that ended the pass (its function name), if one did. */
  stoppedAt?: string;
  requeueAfterMs?: number;
}

/**
 * Runs the steps in order until one stops (or the signal aborts: the controller is stopping, so
 * the pass ends between two steps). A thrown error ends the run and propagates. `onStep` hears
 * each step as it starts, with its name (so a failure and the writes can be told with their step).
 */
export async function runSteps<C>(
  steps: readonly Step<C>[],
  ctx: C,
  opts: { signal?: AbortSignal; onStep?: (name: string, step: Step<C>) => void } = {},
): Promise<StepsOutcome> {
  for (const step of steps) {
    if (opts.signal?.aborted) return { stoppedAt: 'aborted' };
    opts.onStep?.(step.name || 'anonymous', step);
    const result = await step(ctx);
    if (result?.stop) {
      const stoppedAt = step.name || 'anonymous';
      return result.requeueAfterMs === undefined
        ? { stoppedAt }
        : { stoppedAt, requeueAfterMs: result.requeueAfterMs };
    }
  }
  return {};
}

/** What a pass holds that `whileWaiting` puts back: its conditions and its status. */
interface PassState {
  readonly conditions: Conditions;
  readonly status: object;
}

/**
 * `step`, and when it stops to wait (a Job running), `meanwhile` too: steps further down the list
 * that need nothing the wait produces (Services, a PodDisruptionBudget), so that their writes fall
 * inside the wait rather than after it, and the pass that follows the wait finds their objects up
 * to date. They only prepare: the conditions and status fields they set, their stops and their
 * errors are dropped, so the status says what the list's order says; each runs again at its own
 * place, which reports. When `step` goes on, `meanwhile` does not run here.
 */
export function whileWaiting<C extends PassState>(step: Step<C>, ...meanwhile: Step<C>[]): Step<C> {
  const run = {
    [step.name]: async (ctx: C): Promise<StepResult> => {
      const result = await step(ctx);
      if (!result?.stop) return undefined;
      const conditions = ctx.conditions.list();
      const status = structuredClone(ctx.status) as Record<string, unknown>;
      await Promise.allSettled(meanwhile.map(async (m) => m(ctx)));
      ctx.conditions.reset();
      for (const c of conditions) ctx.conditions.set(c);
      const live = ctx.status as Record<string, unknown>;
      for (const key of Object.keys(live)) if (!(key in status)) delete live[key];
      Object.assign(live, status);
      return result;
    },
  }[step.name] as Step<C>;
  return step.reports ? Object.assign(run, { reports: step.reports }) : run;
}
