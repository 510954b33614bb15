import type { Logger } from 'pino';
import { isBadRequest, isForbidden, isGone, isInvalid, isNotFound } from '../client/errors.js';
import { type KindRef, Kinds } from '../client/kinds.js';
import type { KubeClient, KubeObject, ObjectRef } from '../client/types.js';
import { Backoff, sleep } from './backoff.js';
import { INITIAL_EVENTS_END, Informer, type InformerEvent, type InformerOptions } from './informer.js';
import type { CacheListOptions } from './store.js';
import { watchTimeoutSeconds } from './watch-timeout.js';

/** The first wait before the presence of an absent kind is polled again (default 30 s). */
const OPTIONAL_KIND_RECHECK_MS = 30_000;
/** The longest wait between two polls of an absent kind: the wait doubles up to it. */
const OPTIONAL_KIND_MAX_RECHECK_MS = 300_000;
/** The annotation of the bookmark that ends a watch-list's initial events. */

export interface OptionalKindWatchOptions {
  /** The namespaces to watch (all when absent), as the operator's shared cache does. */
  namespaces?: readonly string[] | undefined;
  logger?: Logger;
  /** Polling fallback only (no RBAC on the CRD): the first wait between two presence checks. */
  recheckMs?: number;
  informer?: Omit<InformerOptions, 'namespaces' | 'logger'>;
}

/**
 * A read of an optional kind: `known` when the answer is sure (the CRD is absent, or the kind's
 * informer is synced), with the object or `undefined` for "no such object"; not known while the
 * informer is starting or presence cannot be watched: the caller then asks the API server.
 */
export type OptionalLookup<T extends KubeObject = KubeObject> =
  | { known: true; obj: T | undefined }
  | { known: false };

/**
 * What `ReconcileContext.cache` also answers for the optional kinds its controller watches (read
 * them with `readExternal`).
 */
export interface OptionalKindReader {
  lookupOptional<T extends KubeObject>(kind: KindRef, ref: ObjectRef): OptionalLookup<T>;
  /** Whether the optional kind is served (see `OptionalKindWatch.served`); undefined when not known or not declared. */
  servedOptional(kind: KindRef): boolean | undefined;
}

/**
 * Reads an object of an optional kind (another operator's CR): from the controller's watch of the
 * kind when that knows (the CRD is absent: undefined, no request; else its synced informer), else
 * from the API server — so "not known yet" is never taken for "no such object".
 */
export async function readExternal<T extends KubeObject>(
  ctx: { client: KubeClient; cache: object },
  kind: KindRef,
  ref: ObjectRef,
): Promise<T | undefined> {
  const reader = ctx.cache as Partial<OptionalKindReader>;
  const hit = typeof reader.lookupOptional === 'function' ? reader.lookupOptional<T>(kind, ref) : undefined;
  if (hit?.known) return hit.obj;
  return ctx.client.get<T>(kind, ref);
}

/**
 * Whether an optional kind the reconciling controller watches is served (`OptionalKindWatch.served`):
 * undefined while not known, or when the reader has no watch of the kind.
 */
export function optionalKindServed(cache: object, kind: KindRef): boolean | undefined {
  const reader = cache as Partial<OptionalKindReader>;
  return typeof reader.servedOptional === 'function' ? reader.servedOptional(kind) : undefined;
}

/** The name of the CRD that serves `kind` (`<plural>.<group>`). */
export const crdNameOf = (kind: KindRef): string => `${kind.plural}.${kind.group}`;

interface CrdObject extends KubeObject {
  spec?: { versions?: { name: string; served?: boolean }[] };
  status?: { conditions?: { type: string; status: string }[] };
}

/** Whether this CRD object serves `kind` at its version: established, that version served. */
function crdServes(crd: KubeObject | undefined, kind: KindRef): boolean {
  const c = crd as CrdObject | undefined;
  if (!c || c.metadata?.deletionTimestamp) return false;
  const established = c.status?.conditions?.some((x) => x.type === 'Established' && x.status === 'True');
  return (
    (established ?? false) && (c.spec?.versions?.some((v) => v.name === kind.version && v.served) ?? false)
  );
}

type Presence = 'unknown' | 'absent' | 'served';

/**
 * A watch on a kind whose CRD another operator installs, and which may therefore be absent (a
 * Galera, a Memcached, a Topology). While the kind is not served, its CRD is watched by name
 * (`customresourcedefinitions?fieldSelector=metadata.name=<plural>.<group>`, allowed by RBAC with
 * `resourceNames`): an idle operator sends nothing but that watch's renewal, and a CRD installed
 * later is noticed at once. Once the CRD serves the kind, the CRD watch ends and an informer of
 * the kind starts; every event, the first list included, is handed to the subscribers (`on`), and `lookup`
 * answers reads from it. A running informer costs no request of its own: only when it has had to
 * restart after an error is presence checked again (at once), and if the CRD went away it stops.
 * `served()` tells presence, and `onPresence` hears it change (a CRD installed or removed later).
 * Without RBAC on the CRD (an older chart), presence is polled as before — a `list?limit=1` of
 * the kind after 30 s, then twice as long up to 5 min — and `degraded` says why, so the
 * controller can tell it with an Event; reads then go to the API server.
 * Kept out of the shared cache on purpose: an informer of an absent kind never syncs, and the
 * controllers and the readiness probe wait for the shared cache to sync. Shared like an informer
 * (`InformerCache.optionalWatch`): every controller of the process that declares the kind
 * subscribes with `on` and holds it between `start` and `stop`; it runs while one holds it.
 */
export class OptionalKindWatch {
  private readonly listeners = new Set<(e: InformerEvent) => void>();
  private readonly presenceListeners = new Set<(served: boolean) => void>();
  /** The last `served()` answer told to the presence listeners. */
  private toldServed: boolean | undefined;
  /** How many users started it and have not stopped it yet. */
  private holders = 0;
  private informer: Informer | undefined;
  private stopper: AbortController | undefined;
  private loop: Promise<void> | undefined;
  private presence: Presence = 'unknown';
  /** Whether presence is followed by a CRD watch (else polled: an older chart's RBAC). */
  private crdWatched = true;
  /** Whether the API server takes watch-list requests (`sendInitialEvents`); off after a refusal. */
  private watchList = true;
  /** Last presence reported in the log (so a missing CRD is told once, not every recheck). */
  private told: boolean | undefined;
  /** The informer's error restarts already looked at. */
  private errorsSeen = 0;
  /** Ends the running informer's wait between two looks at its restarts. */
  private wakeOnError: AbortController | undefined;
  private decide: () => void = () => {};
  private decidedOnce: Promise<void> = this.newDecision();

  constructor(
    private readonly client: KubeClient,
    readonly kind: KindRef,
    private readonly opts: OptionalKindWatchOptions = {},
  ) {}

  /** Hears every event of the kind's informer while it runs (its first list included); returns the unsubscribe. */
  on(fn: (e: InformerEvent) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** Whether the kind is served and watched right now. */
  get watching(): boolean {
    return this.informer !== undefined;
  }

  /** Why presence is polled instead of watched (the CRD cannot be watched), or undefined. */
  get degraded(): string | undefined {
    if (this.crdWatched) return undefined;
    return (
      `cannot watch CustomResourceDefinition ${crdNameOf(this.kind)} (forbidden: the chart's RBAC predates ` +
      `this version); ${this.kind.kind} objects are read from the API server and its CRD is looked for every 30 s to 5 min`
    );
  }

  /**
   * Resolves once the first answer is in: the CRD is absent, or the kind's informer has listed,
   * or presence could not be told (forbidden, API server errors). Also when the signal aborts.
   */
  whenDecided(signal?: AbortSignal): Promise<void> {
    if (!signal) return this.decidedOnce;
    return Promise.race([
      this.decidedOnce,
      new Promise<void>((resolve) => {
        if (signal.aborted) resolve();
        signal.addEventListener('abort', () => resolve(), { once: true });
      }),
    ]);
  }

  /**
   * Whether the kind is served: true once its informer has listed, false while its CRD is absent,
   * undefined while that is not known (starting, or the API server's errors).
   */
  served(): boolean | undefined {
    if (this.informer?.synced()) return true;
    return this.presence === 'absent' ? false : undefined;
  }

  /**
   * Hears every change of `served()` between true and false (the first answer included): a CRD
   * installed or removed while the process runs. Returns the unsubscribe.
   */
  onPresence(fn: (served: boolean) => void): () => void {
    this.presenceListeners.add(fn);
    return () => this.presenceListeners.delete(fn);
  }

  /** The objects of the kind as known from the watches: [] while the CRD is absent, undefined when not known. */
  list<T extends KubeObject>(opts?: CacheListOptions): T[] | undefined {
    const served = this.served();
    if (served === false) return [];
    return served ? (this.informer?.list(opts) as T[]) : undefined;
  }

  /** The object `ref` as known from the watches (see `OptionalLookup`). */
  lookup<T extends KubeObject>(ref: ObjectRef): OptionalLookup<T> {
    if (this.presence === 'absent' && this.crdWatched) return { known: true, obj: undefined };
    const informer = this.informer;
    if (informer?.synced()) return { known: true, obj: informer.get(ref) as T | undefined };
    return { known: false };
  }

  /** Holds the watch: the first holder starts it. */
  start(): void {
    this.holders += 1;
    if (this.stopper) return;
    const stopper = new AbortController();
    this.stopper = stopper;
    this.loop = this.run(stopper.signal);
  }

  /** Lets go of the watch: it stops with its last holder. */
  async stop(): Promise<void> {
    this.holders = Math.max(0, this.holders - 1);
    if (this.holders > 0) return;
    this.stopper?.abort();
    await this.loop;
    this.stopper = undefined;
    this.loop = undefined;
    await this.stopInformer();
    this.presence = 'unknown';
    this.toldServed = undefined;
    this.decidedOnce = this.newDecision();
  }

  private newDecision(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.decide = resolve;
    });
  }

  private async run(signal: AbortSignal): Promise<void> {
    const first = this.opts.recheckMs ?? OPTIONAL_KIND_RECHECK_MS;
    const longest = Math.max(first, OPTIONAL_KIND_MAX_RECHECK_MS);
    let wait = first;
    while (!signal.aborted) {
      const informer = this.informer;
      if (informer) {
        // Watching: a timer looks at the informer's restarts, no request unless it failed.
        if (informer.restarts.error > this.errorsSeen) {
          this.errorsSeen = informer.restarts.error;
          if ((await this.present()) === false) {
            await this.stopInformer();
            this.setAbsent();
            continue;
          }
        }
        wait = first;
        // Woken early by an error restart: a CRD removed makes every relist fail at once. (Its
        // own controller, not AbortSignal.any: one composite signal per wait on a long-lived one.)
        const wake = new AbortController();
        const onStop = (): void => wake.abort();
        if (signal.aborted) break;
        signal.addEventListener('abort', onStop, { once: true });
        this.wakeOnError = wake;
        await sleep(first, wake.signal);
        this.wakeOnError = undefined;
        signal.removeEventListener('abort', onStop);
        continue;
      }
      if (this.crdWatched) {
        const outcome = await this.followCrd(signal);
        if (outcome === 'served') this.startInformer();
        else if (outcome === 'forbidden') {
          this.crdWatched = false;
          this.opts.logger?.warn({ kind: this.kind.kind, crd: crdNameOf(this.kind) }, this.degraded);
        }
        continue;
      }
      // Polling fallback: the CRD cannot be watched.
      const served = await this.probeServed();
      if (signal.aborted) break;
      if (served === true) {
        this.startInformer();
        wait = first;
        continue;
      }
      if (served === false) this.setAbsent();
      this.decide();
      const next = wait;
      if (served === false) wait = Math.min(wait * 2, longest);
      await sleep(next, signal);
    }
  }

  /**
   * Follows the CRD by name until it serves the kind ('served'), or it cannot be listed or watched
   * ('forbidden'), or the watch stops ('stopped'). The first request is a watch-list (the CRD if it
   * exists, then a bookmark marking the end of that initial state: the first answer in one
   * request); a server without watch-list gets a list, then a watch from its resourceVersion.
   */
  private async followCrd(signal: AbortSignal): Promise<'served' | 'forbidden' | 'stopped'> {
    const fieldSelector = `metadata.name=${crdNameOf(this.kind)}`;
    const backoff = new Backoff({ initialMs: 800, maxMs: 30_000, jitter: 0.2 });
    let resourceVersion: string | undefined;
    const absent = (): void => {
      this.tell(false);
      this.setAbsent();
      this.decide();
      backoff.reset();
    };
    while (!signal.aborted) {
      let served = false;
      const streaming = resourceVersion === undefined && this.watchList;
      try {
        if (resourceVersion === undefined && !streaming) {
          const list = await this.client.list<CrdObject>(Kinds.CustomResourceDefinition, { fieldSelector });
          if (list.items.some((c) => crdServes(c, this.kind))) {
            this.tell(true);
            return 'served';
          }
          absent();
          resourceVersion = list.metadata?.resourceVersion ?? '';
        }
        const watch = new AbortController();
        const onStop = (): void => watch.abort();
        signal.addEventListener('abort', onStop, { once: true });
        // The server ends the watch first; this timer ends one whose stream went silent.
        const timeoutSeconds = watchTimeoutSeconds();
        const timer = setTimeout(() => watch.abort(), (timeoutSeconds + 15) * 1000);
        let initialEnded = !streaming;
        try {
          await this.client.watch<CrdObject>(
            Kinds.CustomResourceDefinition,
            {
              fieldSelector,
              ...(streaming
                ? { sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan' as const }
                : resourceVersion
                  ? { resourceVersion }
                  : {}),
              allowWatchBookmarks: true,
              timeoutSeconds,
              signal: watch.signal,
            },
            (e) => {
              // Events already read in the same chunk still come after the abort: once served,
              // a following end-of-initial-events bookmark must not decide "absent".
              if (served) return;
              const rv = e.object?.metadata?.resourceVersion;
              if (rv) resourceVersion = rv;
              if (e.type === 'BOOKMARK') {
                if (!initialEnded && e.object?.metadata?.annotations?.[INITIAL_EVENTS_END] === 'true') {
                  initialEnded = true;
                  absent();
                }
                return;
              }
              if ((e.type === 'ADDED' || e.type === 'MODIFIED') && crdServes(e.object, this.kind)) {
                served = true;
                watch.abort();
              }
            },
          );
        } finally {
          clearTimeout(timer);
          signal.removeEventListener('abort', onStop);
        }
        if (served) {
          this.tell(true);
          return 'served';
        }
        // Ended before its initial state was sent: start over. Else the server's timeout: resume.
        if (!initialEnded) resourceVersion = undefined;
      } catch (err) {
        if (signal.aborted) break;
        if (served) {
          this.tell(true);
          return 'served';
        }
        if (isForbidden(err)) {
          this.decide();
          return 'forbidden';
        }
        resourceVersion = undefined;
        if (isGone(err)) continue;
        if (streaming && (isInvalid(err) || isBadRequest(err))) {
          // A server without watch-list: list, then watch.
          this.watchList = false;
          continue;
        }
        this.opts.logger?.warn(
          { kind: this.kind.kind, crd: crdNameOf(this.kind), err: String(err) },
          'cannot watch the CRD of an optional kind; retrying',
        );
        // Reads go to the API server meanwhile (presence stays as last seen).
        this.decide();
        await sleep(backoff.next(), signal);
      }
    }
    return 'stopped';
  }

  /** Presence for a running informer that failed: from the CRD when allowed, else a list of the kind. */
  private async present(): Promise<boolean | undefined> {
    if (!this.crdWatched) return this.probeServed();
    try {
      const list = await this.client.list<CrdObject>(Kinds.CustomResourceDefinition, {
        fieldSelector: `metadata.name=${crdNameOf(this.kind)}`,
      });
      const served = list.items.some((c) => crdServes(c, this.kind));
      this.tell(served);
      return served;
    } catch {
      return this.probeServed();
    }
  }

  /** true: served; false: not served (404); undefined: could not tell (kept as it is). */
  private async probeServed(): Promise<boolean | undefined> {
    const namespace = this.kind.namespaced ? this.opts.namespaces?.[0] : undefined;
    try {
      await this.client.list(this.kind, { limit: 1, ...(namespace ? { namespace } : {}) });
      this.tell(true);
      return true;
    } catch (err) {
      if (isNotFound(err)) {
        this.tell(false);
        return false;
      }
      this.opts.logger?.warn(
        { kind: this.kind.kind, err: String(err) },
        'cannot tell whether the kind is served',
      );
      return undefined;
    }
  }

  private tell(served: boolean): void {
    if (this.told === served) return;
    this.told = served;
    this.opts.logger?.info(
      { kind: this.kind.kind, group: this.kind.group },
      served ? 'optional kind served: watching it' : 'optional kind not served (CRD absent): not watching it',
    );
  }

  private setAbsent(): void {
    this.presence = 'absent';
    this.presenceChanged(false);
  }

  private presenceChanged(served: boolean): void {
    if (this.toldServed === served) return;
    this.toldServed = served;
    for (const fn of this.presenceListeners) fn(served);
  }

  private startInformer(): void {
    const informer = new Informer(this.client, this.kind, {
      ...this.opts.informer,
      ...(this.opts.namespaces?.length ? { namespaces: [...this.opts.namespaces] } : {}),
      ...(this.opts.logger ? { logger: this.opts.logger } : {}),
      onRestart: (reason) => {
        if (reason === 'error') this.wakeOnError?.abort();
      },
    });
    informer.on((e) => {
      for (const fn of this.listeners) fn(e);
    });
    this.errorsSeen = 0;
    this.informer = informer;
    this.presence = 'served';
    informer.start();
    const stopper = this.stopper;
    void informer.waitForSync(stopper?.signal).then(() => {
      if (!informer.synced()) return;
      this.presenceChanged(true);
      this.decide();
    });
  }

  private async stopInformer(): Promise<void> {
    const informer = this.informer;
    this.informer = undefined;
    if (this.presence === 'served') this.presence = 'unknown';
    await informer?.stop();
  }
}
