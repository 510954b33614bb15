import type { Logger } from 'pino';
import { listAll } from '../client/client.js';
import { isBadRequest, isGone, isInvalid } from '../client/errors.js';
import { type KindRef, kindKey } from '../client/kinds.js';
import type { KubeClient, KubeObject, ObjectRef, WatchEvent } from '../client/types.js';
import { Backoff, type BackoffOptions, sleep } from './backoff.js';
import { type CacheListOptions, keyOf, Store } from './store.js';
import { watchTimeoutSeconds } from './watch-timeout.js';

export type InformerEvent<T extends KubeObject = KubeObject> =
  | { type: 'add'; obj: T }
  | { type: 'update'; old: T; obj: T }
  | { type: 'delete'; obj: T };

export type RestartReason = 'gone' | 'error' | 'idle';

export interface InformerMetrics {
  restarted(kind: string, reason: RestartReason): void;
  objects(kind: string, n: number): void;
}

export interface InformerOptions<T extends KubeObject = KubeObject> {
  /** Namespaces to list/watch (one list+watch each); all namespaces when absent. */
  namespaces?: string[];
  labelSelector?: string;
  fieldSelector?: string;
  pageSize?: number;
  /**
   * Sync each scope with one watch-list request (`sendInitialEvents`: the current objects as
   * events, then a bookmark) instead of a list and then a watch; default true. An API server that
   * refuses it gets list+watch from then on.
   */
  watchList?: boolean;
  /** Server-side watch timeout (default 30–60 min at random, `watchTimeoutSeconds`). */
  watchTimeoutSeconds?: number;
  /** Restart a watch that delivered nothing (not even a bookmark) for this long (default timeout + 10 s). */
  idleTimeoutMs?: number;
  /** Backoff between restarts after errors (default 800 ms → 30 s, ×2, ±20 %). */
  backoff?: BackoffOptions;
  /** Shapes cached objects; by default `slimForCache` (no managedFields, no kubectl last-applied copy). */
  transform?: (obj: T) => T;
  logger?: Logger;
  metrics?: InformerMetrics;
  /** Hears each restart of a watch, with its reason (e.g. an optional kind's CRD went away: `error`). */
  onRestart?: (reason: RestartReason) => void;
}

const defaultInformerBackoff: BackoffOptions = {
  initialMs: 800,
  maxMs: 30_000,
  factor: 2,
  jitter: 0.2,
};

/** kubectl's copy of the whole object it last applied: no controller reads it, and it doubles the object. */
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

/**
 * What a cache keeps of an object by default: everything but `metadata.managedFields` and kubectl's
 * last-applied annotation, which no controller reads from a cache and which are most of a small
 * object's bytes (managedFields alone grows with every field manager that ever wrote it).
 */
export function slimForCache<T extends KubeObject>(obj: T): T {
  const meta = obj.metadata;
  if (!meta) return obj;
  const lastApplied = meta.annotations !== undefined && LAST_APPLIED in meta.annotations;
  if (!('managedFields' in meta) && !lastApplied) return obj;
  const { managedFields: _dropped, ...metadata } = meta as T['metadata'] & { managedFields?: unknown };
  if (lastApplied) {
    const { [LAST_APPLIED]: _copy, ...annotations } = meta.annotations ?? {};
    if (Object.keys(annotations).length) metadata.annotations = annotations;
    else delete metadata.annotations;
  }
  return { ...obj, metadata };
}

/** One list+watch loop over one scope (a namespace, or the whole cluster). */
interface Reflector {
  namespace: string | undefined;
  /** Where the next watch resumes; undefined until the scope's current state has been read. */
  resourceVersion: string | undefined;
  synced: boolean;
  /** The last watch-list of this scope failed: read it with a list once. */
  listNext: boolean;
}

/** The annotation on the bookmark that ends a watch-list's initial objects. */
export const INITIAL_EVENTS_END = 'k8s.io/initial-events-end';

/**
 * An informer for one kind: reads the current objects — one watch-list request that streams them
 * and goes on watching, or a list and then a watch from its resourceVersion — keeps a cache, and
 * tells listeners about adds, updates and deletes. It never gives up: 410 Gone re-reads at once,
 * any other failure restarts with jittered exponential backoff, and a watchdog restarts a watch
 * that went silent. `synced()` turns true once every scope's current state has been read.
 */
export class Informer<T extends KubeObject = KubeObject> {
  readonly store = new Store<T>();
  readonly restarts: Record<RestartReason, number> = { gone: 0, error: 0, idle: 0 };
  private readonly listeners = new Set<(e: InformerEvent<T>) => void>();
  private readonly reflectors: Reflector[];
  private readonly syncWaiters: (() => void)[] = [];
  private readonly transform: (obj: T) => T;
  private readonly name: string;
  private stopController: AbortController | undefined;
  private loops: Promise<void>[] = [];
  private watchList: boolean;

  constructor(
    private readonly client: KubeClient,
    readonly kind: KindRef,
    private readonly opts: InformerOptions<T> = {},
  ) {
    const scopes = kind.namespaced && opts.namespaces?.length ? opts.namespaces : [undefined];
    this.reflectors = scopes.map((namespace) => ({
      namespace,
      resourceVersion: undefined,
      synced: false,
      listNext: false,
    }));
    this.transform = opts.transform ?? slimForCache;
    this.name = kindKey(kind);
    this.watchList = opts.watchList ?? true;
  }

  /** Registers a listener; returns a function that removes it. */
  on(listener: (e: InformerEvent<T>) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get(ref: ObjectRef | string): T | undefined {
    return this.store.get(ref);
  }

  list(opts?: CacheListOptions): T[] {
    return this.store.list(opts);
  }

  synced(): boolean {
    return this.reflectors.every((r) => r.synced);
  }

  /** Resolves once synced, or when the signal aborts (then check `synced()`). */
  waitForSync(signal?: AbortSignal): Promise<void> {
    if (this.synced() || signal?.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      // Whichever comes first unregisters the other, so neither the signal nor the informer keeps it.
      const done = (): void => {
        signal?.removeEventListener('abort', done);
        const i = this.syncWaiters.indexOf(done);
        if (i >= 0) this.syncWaiters.splice(i, 1);
        resolve();
      };
      this.syncWaiters.push(done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }

  get running(): boolean {
    return this.stopController !== undefined;
  }

  start(): void {
    if (this.stopController) return;
    const stop = new AbortController();
    this.stopController = stop;
    this.loops = this.reflectors.map((r) => this.run(r, stop.signal));
  }

  async stop(): Promise<void> {
    const stop = this.stopController;
    if (!stop) return;
    stop.abort();
    await Promise.all(this.loops);
    this.stopController = undefined;
    this.loops = [];
  }

  private async run(r: Reflector, stop: AbortSignal): Promise<void> {
    const backoff = new Backoff(this.opts.backoff ?? defaultInformerBackoff);
    let goneInARow = 0;
    while (!stop.aborted) {
      const streaming = r.resourceVersion === undefined && this.watchList && !r.listNext;
      try {
        if (r.resourceVersion === undefined && !streaming) {
          await this.relist(r);
          backoff.reset();
        }
        await this.watch(
          r,
          stop,
          () => {
            goneInARow = 0;
          },
          () => backoff.reset(),
        );
        // The server ended the watch (its timeout): resume from the last resourceVersion, or
        // stream the current state again if it ended before sending all of it.
      } catch (err) {
        if (stop.aborted) break;
        if (streaming && r.resourceVersion === undefined) {
          if (isBadRequest(err) || isInvalid(err)) {
            // An API server without watch-list (older, or the feature turned off): list, then watch.
            this.watchList = false;
            this.opts.logger?.info(
              { kind: this.kind.kind, err: String(err) },
              'the API server refuses watch-list requests; listing instead',
            );
          } else {
            // E.g. a new CRD whose watch cache is still initializing (429): a list reads etcd and
            // syncs now; waiting out a backoff first would only delay the controllers.
            r.listNext = true;
          }
          continue;
        }
        const reason: RestartReason = isGone(err) ? 'gone' : err instanceof WatchIdle ? 'idle' : 'error';
        this.restarts[reason] += 1;
        this.opts.metrics?.restarted(this.name, reason);
        this.opts.onRestart?.(reason);
        this.opts.logger?.warn(
          { kind: this.kind.kind, namespace: r.namespace, reason, err: String(err) },
          'informer restarting',
        );
        if (reason === 'gone') {
          r.resourceVersion = undefined;
          goneInARow += 1;
          // One 410 means "relist now"; a second in a row means the server is in trouble: back off.
          if (goneInARow === 1) continue;
        }
        await sleep(backoff.next(), stop);
      }
    }
  }

  private async relist(r: Reflector): Promise<void> {
    const { items, resourceVersion } = await listAll<T>(this.client, this.kind, {
      ...(r.namespace ? { namespace: r.namespace } : {}),
      ...(this.opts.labelSelector ? { labelSelector: this.opts.labelSelector } : {}),
      ...(this.opts.fieldSelector ? { fieldSelector: this.opts.fieldSelector } : {}),
      ...(this.opts.pageSize ? { pageSize: this.opts.pageSize } : {}),
    });
    this.replace(r, items);
    r.resourceVersion = resourceVersion;
    r.listNext = false;
    this.markSynced(r);
  }

  private markSynced(r: Reflector): void {
    if (r.synced) return;
    r.synced = true;
    if (this.synced()) for (const w of this.syncWaiters.splice(0)) w();
  }

  /** Makes the cache of one scope equal to a fresh list, telling listeners what changed. */
  private replace(r: Reflector, items: T[]): void {
    const seen = new Set<string>();
    for (const raw of items) {
      const obj = this.transform(raw);
      const key = keyOf(obj);
      seen.add(key);
      const old = this.store.get(key);
      if (old && old.metadata.resourceVersion === obj.metadata.resourceVersion) continue;
      this.store.set(obj);
      this.emit(old ? { type: 'update', old, obj } : { type: 'add', obj });
    }
    for (const key of this.store.keys(r.namespace)) {
      if (seen.has(key)) continue;
      const old = this.store.delete(key);
      if (old) this.emit({ type: 'delete', obj: old });
    }
    this.opts.metrics?.objects(this.name, this.store.size);
  }

  /**
   * Watches one scope from its resourceVersion; without one, as a watch-list: the objects that
   * arrive before the end-of-initial-events bookmark replace the scope's cache at once, as a list
   * would, so nothing is resumed from a partial state and deletes in between are seen.
   */
  private async watch(
    r: Reflector,
    stop: AbortSignal,
    onOpen: () => void,
    onSynced: () => void,
  ): Promise<void> {
    if (stop.aborted) return;
    let initial: T[] | undefined = r.resourceVersion === undefined ? [] : undefined;
    const ac = new AbortController();
    const onStop = (): void => ac.abort();
    stop.addEventListener('abort', onStop, { once: true });
    const timeoutSeconds = this.opts.watchTimeoutSeconds ?? watchTimeoutSeconds();
    const idleMs = this.opts.idleTimeoutMs ?? (timeoutSeconds + 10) * 1000;
    let idle = false;
    // One timer per watch, not one per event: each event only notes the time, and the timer, when
    // it fires, waits out what is left of the quiet period. Re-arming at every event cost a timer
    // list of its own per watch (their lengths are jittered), made and dropped at each line.
    let lastEvent = performance.now();
    let timer: NodeJS.Timeout | undefined;
    const arm = (ms: number): void => {
      timer = setTimeout(() => {
        const quiet = performance.now() - lastEvent;
        if (quiet < idleMs) return arm(idleMs - quiet);
        idle = true;
        ac.abort();
      }, ms);
    };
    arm(idleMs);
    try {
      await this.client.watch<T>(
        this.kind,
        {
          ...(r.namespace ? { namespace: r.namespace } : {}),
          ...(this.opts.labelSelector ? { labelSelector: this.opts.labelSelector } : {}),
          ...(this.opts.fieldSelector ? { fieldSelector: this.opts.fieldSelector } : {}),
          ...(initial
            ? { sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan' as const }
            : r.resourceVersion
              ? { resourceVersion: r.resourceVersion }
              : {}),
          allowWatchBookmarks: true,
          timeoutSeconds,
          signal: ac.signal,
          onOpen,
        },
        (e) => {
          lastEvent = performance.now();
          if (!initial) {
            this.apply(r, e);
            return;
          }
          if (e.type === 'BOOKMARK') {
            if (e.object.metadata?.annotations?.[INITIAL_EVENTS_END] !== 'true') return;
            this.replace(r, initial);
            initial = undefined;
            r.resourceVersion = e.object.metadata.resourceVersion ?? '';
            this.markSynced(r);
            onSynced();
          } else if (e.type === 'ADDED') {
            initial.push(e.object);
          }
        },
      );
    } finally {
      clearTimeout(timer);
      stop.removeEventListener('abort', onStop);
    }
    if (idle) throw new WatchIdle(idleMs);
  }

  private apply(r: Reflector, e: WatchEvent<T>): void {
    const rv = e.object.metadata?.resourceVersion;
    if (e.type === 'BOOKMARK') {
      if (rv) r.resourceVersion = rv;
      return;
    }
    const obj = this.transform(e.object);
    const key = keyOf(obj);
    if (e.type === 'DELETED') {
      const old = this.store.delete(key);
      this.emit({ type: 'delete', obj: old ?? obj });
    } else {
      const old = this.store.get(key);
      if (!old || old.metadata.resourceVersion !== rv) {
        this.store.set(obj);
        this.emit(old ? { type: 'update', old, obj } : { type: 'add', obj });
      }
    }
    if (rv) r.resourceVersion = rv;
    this.opts.metrics?.objects(this.name, this.store.size);
  }

  private emit(e: InformerEvent<T>): void {
    for (const l of this.listeners) {
      try {
        l(e);
      } catch (err) {
        this.opts.logger?.error({ kind: this.kind.kind, err }, 'informer listener failed');
      }
    }
  }
}

/** A watch that delivered nothing for longer than the idle timeout. */
class WatchIdle extends Error {
  constructor(ms: number) {
    super(`watch silent for ${ms} ms`);
    this.name = 'WatchIdle';
  }
}
