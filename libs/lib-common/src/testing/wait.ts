import type { KindRef } from '../client/kinds.js';
import type { KubeClient, KubeObject, ObjectRef } from '../client/types.js';

export interface WaitOptions {
  timeoutMs?: number;
  intervalMs?: number;
  /** What is awaited, for the timeout message (default: the predicate's source is not shown). */
  description?: string;
}

interface ConditionLike {
  type?: string;
  status?: string;
  reason?: string;
  message?: string;
  severity?: string;
}

/** The object as a readable JSON document, without managedFields and with Secret values hidden. */
export function describeObject(obj: KubeObject | undefined): string {
  if (!obj) return '(object does not exist)';
  const { managedFields: _m, ...metadata } = obj.metadata as KubeObject['metadata'] & {
    managedFields?: unknown;
  };
  const shown: Record<string, unknown> = { ...obj, metadata };
  for (const field of ['data', 'stringData'] as const) {
    const values = shown[field];
    if (obj.kind === 'Secret' && values && typeof values === 'object') {
      shown[field] = Object.fromEntries(Object.keys(values).map((k) => [k, '<redacted>']));
    }
  }
  return JSON.stringify(shown, null, 2);
}

/** One line per status condition: `Ready=False (Error) DeploymentNotReady: waiting for …`. */
export function describeConditions(obj: KubeObject | undefined): string {
  const status = obj?.['status'] as { conditions?: ConditionLike[] } | undefined;
  const conditions = status?.conditions ?? [];
  if (conditions.length === 0) return '(no conditions)';
  return conditions
    .map(
      (c) =>
        `${c.type}=${c.status}${c.severity ? ` (${c.severity})` : ''}${c.reason ? ` ${c.reason}` : ''}${c.message ? `: ${c.message}` : ''}`,
    )
    .join('\n');
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Polls an object until `predicate` holds (and resolves with it). On timeout it throws an error
 * that shows the object and its conditions, which is usually all one needs to see why.
 * The predicate receives `undefined` while the object does not exist.
 */
export async function waitFor<T extends KubeObject>(
  client: KubeClient,
  kind: KindRef,
  ref: ObjectRef,
  predicate: (obj: T | undefined) => boolean,
  opts: WaitOptions = {},
): Promise<T | undefined> {
  const deadline = Date.now() + (opts.timeoutMs ?? 30_000);
  let last: T | undefined;
  for (;;) {
    last = await client.get<T>(kind, ref);
    if (predicate(last)) return last;
    if (Date.now() > deadline) break;
    await sleep(opts.intervalMs ?? 200);
  }
  const where = `${kind.kind} ${ref.namespace ? `${ref.namespace}/` : ''}${ref.name}`;
  throw new Error(
    `timed out after ${opts.timeoutMs ?? 30_000} ms waiting for ${opts.description ?? 'the condition'} on ${where}\n` +
      `conditions:\n${describeConditions(last)}\nobject:\n${describeObject(last)}`,
  );
}

/**
 * Polls until the object exists and `check` holds, and resolves with it (60 s unless told); on
 * timeout the error shows the object and its conditions, as `waitFor`'s does.
 */
export async function waitForObject<T extends KubeObject>(
  client: KubeClient,
  kind: KindRef,
  ref: ObjectRef,
  check: (obj: T) => boolean,
  opts: WaitOptions = {},
): Promise<T> {
  const found = await waitFor<T>(client, kind, ref, (o) => o !== undefined && check(o), {
    timeoutMs: 60_000,
    ...opts,
  });
  return found as T;
}

/** Waits until the object is gone. */
export async function waitForDeletion(
  client: KubeClient,
  kind: KindRef,
  ref: ObjectRef,
  opts: WaitOptions = {},
): Promise<void> {
  await waitFor(client, kind, ref, (o) => o === undefined, { description: 'deletion', ...opts });
}

export interface WaitUntilOptions {
  timeoutMs?: number;
  intervalMs?: number;
  /** What to show on timeout instead of the last value (e.g. the object and its conditions). */
  describe?: () => unknown;
}

/**
 * Polls `probe` until it returns something other than `undefined`/`false`, and resolves with it.
 * A probe that throws is retried like one that returned nothing (the object may not exist yet). On
 * timeout the error names `what` and shows the last value (or `describe()`) and the last error.
 */
export async function waitUntil<T>(
  what: string,
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  opts: WaitUntilOptions = {},
): Promise<T> {
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  let lastError: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined && v !== false) return v;
      last = v;
      lastError = undefined;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline) break;
    await sleep(opts.intervalMs ?? 250);
  }
  let shown: unknown = last;
  if (opts.describe) {
    try {
      shown = await opts.describe();
    } catch (err) {
      shown = `(describe failed: ${String(err)})`;
    }
  }
  throw new Error(
    `timed out after ${timeoutMs} ms waiting for ${what}` +
      (lastError !== undefined
        ? `; last error: ${lastError instanceof Error ? lastError.message : String(lastError)}`
        : '') +
      `; last: ${typeof shown === 'string' ? shown : JSON.stringify(shown, null, 2)}`,
  );
}

/** Retries an assertion (or any check that throws) until it passes; rethrows the last failure. */
export async function eventually<R>(
  check: () => R | Promise<R>,
  opts: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<R> {
  const deadline = Date.now() + (opts.timeoutMs ?? 30_000);
  for (;;) {
    try {
      return await check();
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await sleep(opts.intervalMs ?? 100);
    }
  }
}
