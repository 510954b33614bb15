import type { Controller } from '../../src/runtime/controller.js';

/**
 * Waits until the controller is idle and `count` (e.g. reconciles so far) stayed the same for
 * `quietMs`: the echoes of a reconcile's own writes (watch events of the status patch and of the
 * owned objects) have been processed.
 */
export async function settle(
  controller: Pick<Controller, 'whenIdle' | 'stats'>,
  count: () => number,
  quietMs = 1000,
  timeoutMs = 30_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = count();
  let quietSince = Date.now();
  while (Date.now() < deadline) {
    await controller.whenIdle();
    await new Promise((r) => setTimeout(r, 100));
    const now = count();
    if (now !== last) {
      last = now;
      quietSince = Date.now();
    } else if (
      Date.now() - quietSince >= quietMs &&
      controller.stats.depth === 0 &&
      controller.stats.running === 0
    ) {
      return;
    }
  }
  throw new Error(`controller did not settle within ${timeoutMs} ms (count ${count()})`);
}
