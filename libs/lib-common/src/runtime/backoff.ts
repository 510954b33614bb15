export interface BackoffOptions {
  /** First delay (ms). */
  initialMs: number;
  /** Upper bound of any delay (ms). */
  maxMs: number;
  /** Growth per attempt (default 2). */
  factor?: number;
  /** Random spread as a fraction of the delay: 0.2 means ±20 % (default 0). */
  jitter?: number;
}

/** Delay before retry number `attempt` (0-based): initial × factor^attempt, capped, then jittered. */
export function backoffDelay(
  opts: BackoffOptions,
  attempt: number,
  random: () => number = Math.random,
): number {
  const factor = opts.factor ?? 2;
  // Cap the exponent too, so a long failure streak cannot overflow to Infinity.
  const raw = opts.initialMs * factor ** Math.min(attempt, 64);
  const capped = Math.min(raw, opts.maxMs);
  const jitter = opts.jitter ?? 0;
  if (jitter <= 0) return capped;
  const spread = capped * jitter * (2 * random() - 1);
  return Math.max(0, Math.min(opts.maxMs, Math.round(capped + spread)));
}

/** A backoff that remembers its attempt count; `reset()` after a success. */
export class Backoff {
  private attempt = 0;

  constructor(
    private readonly opts: BackoffOptions,
    private readonly random: () => number = Math.random,
  ) {}

  next(): number {
    const d = backoffDelay(this.opts, this.attempt, this.random);
    this.attempt += 1;
    return d;
  }

  get attempts(): number {
    return this.attempt;
  }

  reset(): void {
    this.attempt = 0;
  }
}

/** Resolves after `ms`, or at once (without rejecting) when the signal aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
