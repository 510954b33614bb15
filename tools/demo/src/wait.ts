import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { KubeClient, KubeObject } from '@stackops/lib-common/client';
import { Listr, PRESET_TIMER } from 'listr2';
import type { DemoTarget } from './targets.js';

export interface ConditionView {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  severity?: string;
}

export interface TargetResult {
  target: DemoTarget;
  object?: KubeObject;
  conditions: ConditionView[];
  done: boolean;
  /** From the moment the wait began (the examples were just applied) to done. */
  tookMs?: number;
}

export const conditionsOf = (obj: KubeObject | undefined): ConditionView[] =>
  ((obj?.['status'] as { conditions?: ConditionView[] } | undefined)?.conditions ?? []).slice();

const isDone = (t: DemoTarget, obj: KubeObject | undefined): boolean =>
  conditionsOf(obj).some((c) => c.type === t.doneCondition && c.status === 'True');

/** The condition to show while waiting: the first non-True one, else the done condition. */
function headline(t: DemoTarget, conds: ConditionView[]): string {
  const pending =
    conds.find((c) => c.status !== 'True' && c.type !== t.doneCondition) ??
    conds.find((c) => c.type === t.doneCondition);
  if (!pending) return 'no status yet';
  return `${pending.type}=${pending.status}${pending.message ? `: ${pending.message}` : ''}`;
}

/**
 * Live progress (listr2: a spinner and timer per resource on a terminal, a line per change
 * otherwise) until every target reports its done condition, or the timeout.
 */
export async function waitForTargets(
  client: KubeClient,
  targets: DemoTarget[],
  timeoutMs: number,
): Promise<TargetResult[]> {
  const started = performance.now();
  const results = new Map<DemoTarget, TargetResult>(
    targets.map((t) => [t, { target: t, conditions: [], done: false }]),
  );
  const tasks = new Listr(
    targets.map((t) => ({
      title: t.label,
      task: async (_ctx: unknown, task: { title: string; output: string }) => {
        let last = '';
        for (;;) {
          const obj = await client
            .get(t.kind, { name: t.name, ...(t.namespace ? { namespace: t.namespace } : {}) })
            .catch(() => undefined);
          const r = results.get(t)!;
          r.object = obj;
          r.conditions = conditionsOf(obj);
          if (isDone(t, obj)) {
            r.done = true;
            r.tookMs = performance.now() - started;
            task.title = `${t.label}: ${t.doneCondition} after ${(r.tookMs / 1000).toFixed(1)}s`;
            return;
          }
          const line = headline(t, r.conditions);
          if (line !== last) task.output = line;
          last = line;
          if (performance.now() - started > timeoutMs)
            throw new Error(`${t.label} not ${t.doneCondition}: ${line}`);
          await sleep(1000);
        }
      },
    })),
    {
      concurrent: true,
      exitOnError: false,
      rendererOptions: { timer: PRESET_TIMER },
      fallbackRendererOptions: { timer: PRESET_TIMER },
    },
  );
  await tasks.run().catch(() => undefined);
  return targets.map((t) => results.get(t)!);
}
