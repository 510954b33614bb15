import type { Manager } from '../runtime/manager.js';

/** Reconciles `controller` ran so far: the sum of its `controller_runtime_reconcile_total` series. */
export async function reconcileCount(
  manager: Pick<Manager, 'registry'>,
  controller: string,
): Promise<number> {
  const metric = await manager.registry.getSingleMetric('controller_runtime_reconcile_total')?.get();
  return (metric?.values ?? [])
    .filter((v) => v.labels['controller'] === controller)
    .reduce((sum, v) => sum + v.value, 0);
}

/**
 * The reconcile count once it stopped moving for `quietMs` (the writes of the last pass came back
 * and woke nothing more), so a test can prove an event did NOT wake the controller:
 * `expect(await settledReconcileCount(m, c)).toBe(before)`. Gives up after `timeoutMs`.
 */
export async function settledReconcileCount(
  manager: Pick<Manager, 'registry'>,
  controller: string,
  opts: { quietMs?: number; timeoutMs?: number } = {},
): Promise<number> {
  const quietMs = opts.quietMs ?? 200;
  const deadline = Date.now() + (opts.timeoutMs ?? 10_000);
  let last = await reconcileCount(manager, controller);
  for (;;) {
    await new Promise((r) => setTimeout(r, quietMs));
    const now = await reconcileCount(manager, controller);
    if (now === last) return now;
    if (Date.now() > deadline) {
      throw new Error(
        `${controller} still reconciling after ${opts.timeoutMs ?? 10_000} ms (${now} reconciles)`,
      );
    }
    last = now;
  }
}
