import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { backoffDelay } from './backoff.js';
import { type Outcome, WorkQueue } from './queue.js';

interface Deferred {
  promise: Promise<void>;
  resolve: () => void;
}
function deferred(): Deferred {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/**
 * Lets pending promise callbacks run (handlers resolve in microtasks), and the loop turn a few
 * times: the queue starts one key per turn.
 */
const flush = async (): Promise<void> => {
  for (let i = 0; i < 10; i++) {
    await Promise.resolve();
    await new Promise((r) => setImmediate(r));
  }
};

describe('backoffDelay', () => {
  it('doubles from the initial delay and stops at the cap', () => {
    const opts = { initialMs: 5, maxMs: 1000 };
    expect([0, 1, 2, 3, 4, 5, 6, 7, 8].map((n) => backoffDelay(opts, n))).toEqual([
      5, 10, 20, 40, 80, 160, 320, 640, 1000,
    ]);
    expect(backoffDelay(opts, 10_000)).toBe(1000);
  });

  it('spreads a delay by the jitter fraction without passing the cap', () => {
    const opts = { initialMs: 100, maxMs: 1000, jitter: 0.5 };
    expect(backoffDelay(opts, 0, () => 0)).toBe(50);
    expect(backoffDelay(opts, 0, () => 1)).toBe(150);
    expect(backoffDelay(opts, 10, () => 1)).toBe(1000);
  });
});

describe('WorkQueue', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('runs a key added many times before it starts only once', async () => {
    const runs: string[] = [];
    const q = new WorkQueue(async (k) => {
      runs.push(k);
      return 'success';
    });
    for (let i = 0; i < 5; i++) q.add('ns/a');
    q.add('ns/b');
    q.start();
    await q.whenIdle();
    expect(runs).toEqual(['ns/a', 'ns/b']);
  });

  it('never runs one key twice at once, and runs it once more when added during its run', async () => {
    const gate = deferred();
    let active = 0;
    let maxActive = 0;
    let runs = 0;
    const q = new WorkQueue(
      async () => {
        runs += 1;
        active += 1;
        maxActive = Math.max(maxActive, active);
        if (runs === 1) await gate.promise;
        active -= 1;
        return 'success';
      },
      { concurrency: 4 },
    );
    q.start();
    q.add('ns/a');
    await flush();
    expect(q.running).toBe(1);
    q.add('ns/a');
    q.add('ns/a');
    await flush();
    expect(runs).toBe(1);
    gate.resolve();
    await q.whenIdle();
    await flush();
    await q.whenIdle();
    expect(runs).toBe(2);
    expect(maxActive).toBe(1);
  });

  it('starts one key per turn of the loop, across queues, so I/O is served between runs that need none', async () => {
    const log: string[] = [];
    const handler = async (k: string): Promise<Outcome> => {
      log.push(k);
      return 'success';
    };
    const first = new WorkQueue(handler, { concurrency: 4 });
    const second = new WorkQueue(handler, { concurrency: 4 });
    for (const k of ['a1', 'a2', 'a3']) first.add(k);
    for (const k of ['b1', 'b2', 'b3']) second.add(k);
    first.start();
    second.start();
    // Stands for an answer or a probe that arrives while the runs are due.
    setImmediate(() => log.push('io'));
    await first.whenIdle();
    await second.whenIdle();
    expect(log).toEqual(['a1', 'io', 'b1', 'a2', 'b2', 'a3', 'b3']);
  });

  it('bounds concurrency across keys', async () => {
    let active = 0;
    let maxActive = 0;
    const gates = new Map<string, Deferred>();
    const q = new WorkQueue(
      async (k) => {
        active += 1;
        maxActive = Math.max(maxActive, active);
        const g = deferred();
        gates.set(k, g);
        await g.promise;
        active -= 1;
        return 'success';
      },
      { concurrency: 3 },
    );
    for (let i = 0; i < 10; i++) q.add(`ns/k${i}`);
    q.start();
    await flush();
    expect(q.running).toBe(3);
    expect(q.depth).toBe(7);
    for (let round = 0; round < 10; round++) {
      for (const g of gates.values()) g.resolve();
      await flush();
    }
    await q.whenIdle();
    expect(maxActive).toBe(3);
  });

  it('retries a failing key with per-key exponential backoff up to the cap', async () => {
    const at: number[] = [];
    const q = new WorkQueue(
      async () => {
        at.push(performance.now());
        return 'error';
      },
      { backoff: { initialMs: 100, maxMs: 800 } },
    );
    q.start();
    const t0 = performance.now();
    q.add('ns/a');
    await flush();
    for (let i = 0; i < 7; i++) {
      await vi.advanceTimersToNextTimerAsync();
      await flush();
    }
    const gaps = at.slice(1).map((t, i) => t - (at[i] ?? t0));
    expect(gaps).toEqual([100, 200, 400, 800, 800, 800, 800]);
    expect(q.failuresOf('ns/a')).toBe(8);
    await q.shutdown(0);
  });

  it('keeps failure counts per key and resets them on success', async () => {
    let failA = 3;
    const q = new WorkQueue(async (k) => {
      if (k === 'ns/a' && failA > 0) {
        failA -= 1;
        return 'error';
      }
      return k === 'ns/b' ? 'error' : 'success';
    });
    q.start();
    q.add('ns/a');
    q.add('ns/b');
    await flush();
    expect(q.failuresOf('ns/a')).toBe(1);
    expect(q.failuresOf('ns/b')).toBe(1);
    await vi.advanceTimersByTimeAsync(1000);
    expect(q.failuresOf('ns/a')).toBe(0);
    expect(q.failuresOf('ns/b')).toBeGreaterThan(3);
    await q.shutdown(0);
  });

  it('honours requeueAfterMs, and an earlier add wins over the schedule', async () => {
    const at: number[] = [];
    const outcomes: Outcome[] = [{ requeueAfterMs: 1000 }, { requeueAfterMs: 1000 }, 'success'];
    const q = new WorkQueue(async () => {
      at.push(performance.now());
      return outcomes.shift() ?? 'success';
    });
    q.start();
    q.add('ns/a');
    await flush();
    expect(at).toHaveLength(1);
    expect(q.scheduled).toBe(1);
    await vi.advanceTimersByTimeAsync(999);
    expect(at).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(at).toHaveLength(2);
    // second run scheduled another 1000 ms; an event at +300 ms runs it at once instead
    await vi.advanceTimersByTimeAsync(300);
    q.add('ns/a');
    await flush();
    expect(at).toHaveLength(3);
    expect(q.scheduled).toBe(0);
    await vi.advanceTimersByTimeAsync(5000);
    expect(at).toHaveLength(3);
  });

  it('keeps the earliest of several schedules of one key', async () => {
    const at: number[] = [];
    const q = new WorkQueue(async () => {
      at.push(performance.now());
      return 'success';
    });
    q.start();
    const t0 = performance.now();
    q.addAfter('ns/a', 1000);
    q.addAfter('ns/a', 5000);
    q.addAfter('ns/b', 5000);
    q.addAfter('ns/b', 2000);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(at.map((t) => t - t0)).toEqual([1000, 2000]);
  });

  it('does not retry a terminal outcome', async () => {
    let runs = 0;
    const q = new WorkQueue(async () => {
      runs += 1;
      return 'terminal';
    });
    q.start();
    q.add('ns/a');
    await vi.advanceTimersByTimeAsync(60_000);
    expect(runs).toBe(1);
    expect(q.scheduled).toBe(0);
  });

  it('on shutdown lets in-flight work finish within the deadline and starts nothing new', async () => {
    vi.useRealTimers();
    const started: string[] = [];
    let finished = 0;
    const q = new WorkQueue(
      async (k) => {
        started.push(k);
        await new Promise((r) => setTimeout(r, 30));
        finished += 1;
        return 'success';
      },
      { concurrency: 2 },
    );
    for (const k of ['a', 'b', 'c', 'd']) q.add(k);
    q.start();
    q.addAfter('e', 5);
    await flush();
    const res = await q.shutdown(1000);
    expect(res).toEqual({ drained: true, abandoned: [] });
    expect(finished).toBe(2);
    await new Promise((r) => setTimeout(r, 50));
    q.add('f');
    expect(started).toEqual(['a', 'b']);
  });

  it('aborts the signal of runs still going at the deadline', async () => {
    vi.useRealTimers();
    let aborted = false;
    const q = new WorkQueue(
      (_k, signal) =>
        new Promise<Outcome>((resolve) => {
          signal.addEventListener('abort', () => {
            aborted = true;
            resolve('success');
          });
        }),
    );
    q.add('slow');
    q.start();
    await flush();
    const res = await q.shutdown(20);
    expect(res).toEqual({ drained: false, abandoned: ['slow'] });
    expect(aborted).toBe(true);
  });
});
