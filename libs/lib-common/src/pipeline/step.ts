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
export type Step<C> = (
  ctx: C,
  // biome-ignore lint/suspicious/noConfusingVoidType: steps written as `async (ctx) => { … }` continue
) => StepResult | void | Promise<StepResult | void>;

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
 * each step's name as it starts (so a failure and the writes can be told with their step).
 */
export async function runSteps<C>(
  steps: readonly Step<C>[],
  ctx: C,
  opts: { signal?: AbortSignal; onStep?: (name: string) => void } = {},
): Promise<StepsOutcome> {
  for (const step of steps) {
    if (opts.signal?.aborted) return { stoppedAt: 'aborted' };
    opts.onStep?.(step.name || 'anonymous');
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
