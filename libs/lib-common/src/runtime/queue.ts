import { type BackoffOptions, backoffDelay } from './backoff.js';
import { nextTurn } from './turns.js';

/** What became of one run of a key; the queue decides when (and whether) the key runs again. */
export type Outcome = 'success' | 'error' | 'terminal' | { requeueAfterMs: number };

export type WorkHandler = (key: string, signal: AbortSignal) => Promise<Outcome>;

/** Hooks for depth/latency metrics (see `promQueueMetrics`). */
export interface QueueMetrics {
  depth(n: number): void;
  added(): void;
  /** Seconds a key waited between becoming ready and starting. */
  queued(seconds: number): void;
  /** Seconds a run took. */
  worked(seconds: number): void;
  retried(): void;
  running(n: number): void;
}

export interface WorkQueueOptions {
  /** Keys processed at once (never the same key twice). Default 1. */
  concurrency?: number;
  /** Per-key delay after errors; default 5 ms doubling up to 5 min. */
  backoff?: BackoffOptions;
  metrics?: QueueMetrics;
}

/**
 * FIFO of distinct keys. (A Set used as a queue degrades badly: deleting from its front leaves
 * holes that every later `values().next()` walks over.)
 */
class KeyFifo {
  private items: string[] = [];
  private head = 0;
  private readonly members = new Set<string>();

  get size(): number {
    return this.members.size;
  }

  has(key: string): boolean {
    return this.members.has(key);
  }

  push(key: string): void {
    this.members.add(key);
    this.items.push(key);
  }

  shift(): string | undefined {
    const key = this.items[this.head];
    if (key === undefined) return undefined;
    this.head += 1;
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    this.members.delete(key);
    return key;
  }

  clear(): void {
    this.items = [];
    this.head = 0;
    this.members.clear();
  }
}

const defaultQueueBackoff: BackoffOptions = { initialMs: 5, maxMs: 300_000, factor: 2 };

export interface ShutdownResult {
  /** Every in-flight run finished before the deadline. */
  drained: boolean;
  /** Keys still running at the deadline (their signal was aborted). */
  abandoned: string[];
}

/**
 * A work queue keyed by object reference, after client-go's workqueue and kube-runtime's
 * scheduler: a key added many times before it runs runs once; a key never runs twice at once
 * (an add during its run marks it dirty and it runs again right after); errors delay the key
 * with per-key exponential backoff; `requeueAfterMs` schedules it (the earliest schedule wins).
 */
export class WorkQueue {
  private readonly ready = new KeyFifo();
  private readonly readySince = new Map<string, number>();
  private readonly processing = new Map<string, AbortController>();
  private readonly dirty = new Set<string>();
  private readonly delayed = new Map<string, { at: number; timer: NodeJS.Timeout }>();
  private readonly failures = new Map<string, number>();
  private readonly idleWaiters: (() => void)[] = [];
  private readonly settledWaiters: (() => void)[] = [];
  private readonly concurrency: number;
  private readonly backoff: BackoffOptions;
  private started = false;
  private stopping = false;
  /** A start waits for its turn (`pump`). */
  private turnPending = false;

  constructor(
    private readonly handler: WorkHandler,
    private readonly opts: WorkQueueOptions = {},
  ) {
    this.concurrency = Math.max(1, opts.concurrency ?? 1);
    this.backoff = opts.backoff ?? defaultQueueBackoff;
  }

  /** Makes the key ready now (cancelling a later schedule of it). */
  add(key: string): void {
    if (this.stopping) return;
    this.cancelDelay(key);
    if (this.processing.has(key)) {
      this.dirty.add(key);
      return;
    }
    if (this.ready.has(key)) return;
    this.ready.push(key);
    this.readySince.set(key, performance.now());
    this.opts.metrics?.added();
    this.opts.metrics?.depth(this.ready.size);
    this.pump();
  }

  /** Makes the key ready after `ms`, unless it is (or will be) ready sooner. */
  addAfter(key: string, ms: number): void {
    if (this.stopping) return;
    if (ms <= 0) {
      this.add(key);
      return;
    }
    if (this.ready.has(key) || this.dirty.has(key)) return;
    const at = performance.now() + ms;
    const existing = this.delayed.get(key);
    if (existing && existing.at <= at) return;
    if (existing) clearTimeout(existing.timer);
    const timer = setTimeout(() => {
      this.delayed.delete(key);
      this.add(key);
    }, ms);
    this.delayed.set(key, { at, timer });
  }

  /** Begins processing (keys added before are kept and run now). */
  start(): void {
    if (this.stopping) return;
    this.started = true;
    this.pump();
  }

  /** Consecutive failures of a key (reset by any success, requeueAfterMs or terminal outcome). */
  failuresOf(key: string): number {
    return this.failures.get(key) ?? 0;
  }

  get depth(): number {
    return this.ready.size;
  }

  get running(): number {
    return this.processing.size;
  }

  /** Keys waiting on a timer (requeueAfterMs or backoff). */
  get scheduled(): number {
    return this.delayed.size;
  }

  /** Resolves when nothing is ready or running (scheduled keys may remain). */
  whenIdle(): Promise<void> {
    if (this.ready.size === 0 && this.processing.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /**
   * Stops taking work: ready and scheduled keys are dropped, in-flight runs may finish until the
   * deadline, after which their abort signals fire. A deadline of 0 aborts them at once.
   */
  async shutdown(deadlineMs = 30_000): Promise<ShutdownResult> {
    this.stopping = true;
    for (const { timer } of this.delayed.values()) clearTimeout(timer);
    this.delayed.clear();
    this.ready.clear();
    this.dirty.clear();
    this.opts.metrics?.depth(0);
    if (this.processing.size > 0 && deadlineMs > 0) {
      let timer: NodeJS.Timeout | undefined;
      const settled = new Promise<void>((resolve) => this.settledWaiters.push(resolve));
      const deadline = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, deadlineMs);
      });
      await Promise.race([settled, deadline]);
      clearTimeout(timer);
    }
    const abandoned = [...this.processing.keys()];
    for (const ac of this.processing.values()) ac.abort(new Error('work queue shut down'));
    this.notifyIdle();
    return { drained: abandoned.length === 0, abandoned };
  }

  private cancelDelay(key: string): void {
    const d = this.delayed.get(key);
    if (!d) return;
    clearTimeout(d.timer);
    this.delayed.delete(key);
  }

  /**
   * Starts the next ready key in a later turn of the loop (`nextTurn`), one per turn: a key added
   * meanwhile is still merged with the waiting one, and a shutdown meanwhile starts nothing.
   */
  private pump(): void {
    if (!this.started || this.stopping || this.turnPending) return;
    if (this.processing.size >= this.concurrency || this.ready.size === 0) return;
    this.turnPending = true;
    void nextTurn().then(() => {
      this.turnPending = false;
      this.startNext();
    });
  }

  private startNext(): void {
    if (!this.started || this.stopping || this.processing.size >= this.concurrency) return;
    const key = this.ready.shift();
    if (key === undefined) return;
    const since = this.readySince.get(key) ?? performance.now();
    this.readySince.delete(key);
    this.opts.metrics?.depth(this.ready.size);
    this.opts.metrics?.queued((performance.now() - since) / 1000);
    const ac = new AbortController();
    this.processing.set(key, ac);
    this.opts.metrics?.running(this.processing.size);
    void this.run(key, ac);
    this.pump();
  }

  private async run(key: string, ac: AbortController): Promise<void> {
    const started = performance.now();
    let outcome: Outcome;
    try {
      outcome = await this.handler(key, ac.signal);
    } catch {
      outcome = 'error';
    }
    this.opts.metrics?.worked((performance.now() - started) / 1000);
    this.processing.delete(key);
    this.opts.metrics?.running(this.processing.size);
    if (!this.stopping) this.settle(key, outcome);
    if (this.dirty.delete(key)) this.add(key);
    if (this.processing.size === 0) for (const w of this.settledWaiters.splice(0)) w();
    this.pump();
    this.notifyIdle();
  }

  private settle(key: string, outcome: Outcome): void {
    if (outcome === 'error') {
      const n = this.failures.get(key) ?? 0;
      this.failures.set(key, n + 1);
      this.opts.metrics?.retried();
      this.addAfter(key, backoffDelay(this.backoff, n));
      return;
    }
    this.failures.delete(key);
    if (typeof outcome === 'object') this.addAfter(key, outcome.requeueAfterMs);
  }

  private notifyIdle(): void {
    if (this.ready.size === 0 && this.processing.size === 0) for (const w of this.idleWaiters.splice(0)) w();
  }
}
