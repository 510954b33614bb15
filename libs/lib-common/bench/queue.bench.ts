import { describe, it } from 'vitest';
import { WorkQueue } from '../src/runtime/queue.js';
import { report } from './report.js';

async function throughput(keys: number, addsPerKey: number, concurrency: number): Promise<number> {
  let runs = 0;
  const q = new WorkQueue(
    async () => {
      runs += 1;
      return 'success';
    },
    { concurrency },
  );
  q.start();
  const t0 = performance.now();
  for (let round = 0; round < addsPerKey; round++) for (let i = 0; i < keys; i++) q.add(`ns/key-${i}`);
  await q.whenIdle();
  const seconds = (performance.now() - t0) / 1000;
  await q.shutdown(0);
  return runs / seconds;
}

describe('work queue', () => {
  it('throughput', async () => {
    await throughput(10_000, 1, 1); // warm-up
    for (const [keys, adds, concurrency] of [
      [100_000, 1, 1],
      [100_000, 1, 8],
      [100_000, 3, 8],
    ] as const) {
      const perSecond = await throughput(keys, adds, concurrency);
      report(
        `queue throughput (concurrency ${concurrency}, ${adds} add/key)`,
        perSecond,
        'keys/s',
        `${keys} keys`,
      );
    }
  });
});
