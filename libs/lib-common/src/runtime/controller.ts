import type { Logger } from 'pino';
import type { KindRef } from '../client/kinds.js';
import type { KubeClient, KubeObject, ObjectRef } from '../client/types.js';
import { forObject } from '../logging/logger.js';
import type { BackoffOptions } from './backoff.js';
import type { CacheReader, InformerCache, KindCacheOptions } from './cache.js';
import { NamedObjectWatches } from './controller-sources.js';
import type { CrdSchemaWatch } from './crd-schema.js';
import { defaultErrorPolicy, type ErrorPolicy, ReconcileError } from './error-policy.js';
import type { InformerEvent } from './informer.js';
import type { ControllerMetrics } from './metrics.js';
import {
  crdNameOf,
  type OptionalKindReader,
  type OptionalKindWatch,
  type OptionalLookup,
} from './optional-watch.js';
import type { Predicate } from './predicates.js';
import { type Outcome, type ShutdownResult, WorkQueue } from './queue.js';
import type { EventRecorder } from './recorder.js';
import { type CacheListOptions, keyOf, refOfKey } from './store.js';

export interface ReconcileResult {
  /** Reconcile this object again after this many milliseconds (even without a change). */
  requeueAfterMs?: number;
}

export interface ReconcileContext {
  client: KubeClient;
  cache: CacheReader;
  recorder: EventRecorder;
  /** A logger whose every line carries the controller, kind and object key. */
  log: Logger;
  /** `namespace/name` (or `name` for cluster-scoped kinds). */
  key: string;
  ref: ObjectRef;
  /** Aborts when the controller stops (shutdown deadline passed, or leadership lost). */
  signal: AbortSignal;
  controller: string;
  /**
   * Set while the installed CRD of the primary kind is not the schema the operator was built for
   * (`Manager.watchOwnCrds`): the message of the condition the pipeline adds (ADR 0037).
   */
  crdSchemaMismatch?: string;
}

export type Reconciler<T extends KubeObject> = (
  obj: T,
  ctx: ReconcileContext,
  // biome-ignore lint/suspicious/noConfusingVoidType: reconcilers written as `async (…): Promise<void>` are fine
) => Promise<ReconcileResult | undefined | void>;

export { TerminalError } from './error-policy.js';

/** How long `Controller.start` waits for the optional kinds' first answers before its workers start. */
const OPTIONAL_DECISION_WAIT_MS = 10_000;

/** A read of an optional kind whose watch does not know yet whether it is served: the pass retries. */
const notKnownYet = (kind: KindRef): Error =>
  new Error(`${kind.kind}: not known yet whether its CRD ${crdNameOf(kind)} is installed and served`);

/** Maps an object of a watched kind to the primary objects to reconcile. */
export type MapFn = (obj: KubeObject) => ObjectRef | ObjectRef[] | undefined;

interface Source {
  kind: KindRef;
  toKeys: (obj: KubeObject) => string[];
  predicates: Predicate[];
  cache: KindCacheOptions | undefined;
  optional?: boolean;
}

/** How a watched kind triggers: which events count, and which of its objects are cached at all. */
export interface SourceOptions extends KindCacheOptions {
  predicates?: Predicate[];
  /**
   * The kind's CRD belongs to another operator and may be absent (see `OptionalKindWatch`): it is
   * watched outside the shared cache, from the moment the API server serves it; reconcilers read
   * such objects with `readExternal` (from that watch once it knows, else from the API server), or
   * from `ctx.cache` (which throws while the watch does not know yet). Selectors limit what the
   * kind's informer caches. A CRD installed or removed later reconciles every primary once.
   */
  optional?: boolean;
}

/** `referencedBy` options. */
export interface ReferenceOptions extends SourceOptions {
  /**
   * Watch each named object by name (a list+watch with `metadata.name=<name>` in the primary's
   * namespace, for as long as a primary names it) instead of caching the whole kind: the Secrets a
   * spec names, without listing every Secret. Reconcilers read them from `ctx.cache` as usual.
   */
  byName?: boolean;
}

interface NamedSource {
  kind: KindRef;
  names: (primary: KubeObject) => readonly (string | ObjectRef | undefined)[];
}

const cacheOptionsOf = (o: SourceOptions): KindCacheOptions | undefined =>
  o.labelSelector || o.fieldSelector
    ? {
        ...(o.labelSelector ? { labelSelector: o.labelSelector } : {}),
        ...(o.fieldSelector ? { fieldSelector: o.fieldSelector } : {}),
      }
    : undefined;

export interface ControllerDeps {
  client: KubeClient;
  cache: InformerCache;
  recorder: EventRecorder;
  logger: Logger;
  metrics: ControllerMetrics;
  /** The watch of the operator's own CRDs, when the manager has one (`Manager.watchOwnCrds`). */
  crdSchemas?: () => CrdSchemaWatch | undefined;
  /** Resolves when the process's other informers have synced too (`Manager.cachesSynced`). */
  cachesSynced?: () => Promise<void>;
}

export interface ControllerOptions {
  /** The primary kind (or call `.for(kind)`). */
  for?: KindRef;
  /** Name in logs and metrics; default the primary kind in lower case. */
  name?: string;
  /** Reconciles at once (different keys); default 1. */
  concurrency?: number;
  /** Per-key retry backoff after errors (default 5 ms doubling to 5 min). */
  backoff?: BackoffOptions;
  /**
   * What a failed reconcile leads to (terminal, backoff, or a fixed requeue); returning undefined
   * falls back to `defaultErrorPolicy` (a `ReconcileError` says its own retry, anything else backs off).
   */
  errorPolicy?: ErrorPolicy;
  /** How often an optional kind's CRD is looked for again (see `SourceOptions.optional`; default 30 s). */
  optionalKindRecheckMs?: number;
  /**
   * The safety net for a missed event: an object whose reconcile succeeded without asking to come
   * back is reconciled again after this long (default `DEFAULT_RESYNC_MS`, 10 h, as
   * controller-runtime's informer resync; `false`: never). A pass over an unchanged object reads
   * the cache and writes nothing (ADR 0028), so this costs a pass per object per period.
   */
  resyncMs?: number | false;
}

/** How long a successfully reconciled object waits before its safety-net pass (ADR 0032). */
export const DEFAULT_RESYNC_MS = 10 * 60 * 60 * 1000;

/** The controller owner of an object, if it is of the given kind (version ignored, as the GC does). */
export function controllerOwnerKey(obj: KubeObject, owner: KindRef): string | undefined {
  const ref = obj.metadata.ownerReferences?.find((r) => r.controller === true);
  if (!ref || ref.kind !== owner.kind) return undefined;
  const slash = ref.apiVersion.indexOf('/');
  const group = slash < 0 ? '' : ref.apiVersion.slice(0, slash);
  if (group !== owner.group) return undefined;
  // Owner references never cross namespaces: a namespaced owner lives beside what it owns.
  return owner.namespaced ? keyOf({ namespace: obj.metadata.namespace ?? '', name: ref.name }) : ref.name;
}

function mapToKeys(fn: MapFn, primary: KindRef): (obj: KubeObject) => string[] {
  return (obj) => {
    const out = fn(obj);
    const refs = out === undefined ? [] : Array.isArray(out) ? out : [out];
    return refs.map((r) => keyOf(primary.namespaced ? r : { name: r.name }));
  };
}

const keysOfEvent = (e: InformerEvent, toKeys: (o: KubeObject) => string[]): string[] =>
  e.type === 'update' ? [...new Set([...toKeys(e.old), ...toKeys(e.obj)])] : toKeys(e.obj);

const sameKind = (a: KindRef, b: KindRef): boolean =>
  a.group === b.group && a.kind === b.kind && a.version === b.version;

/** Builder: `for(kind)`, `forPredicates(...)`, `owns(kind)`, `watches(kind, map)`, then `reconcile(fn)`. */
export class ControllerBuilder<T extends KubeObject = KubeObject> {
  private primary: KindRef | undefined;
  private primaryPredicates: Predicate[] = [];
  private primaryCache: KindCacheOptions | undefined;
  private readonly pending: ((primary: KindRef, cache: CacheReader) => Source)[] = [];
  private readonly named: NamedSource[] = [];

  constructor(
    private readonly opts: ControllerOptions,
    private readonly register: (c: Controller<T>) => void,
    private readonly deps: ControllerDeps | ((name: string) => ControllerDeps),
  ) {
    this.primary = opts.for;
  }

  /** The primary kind; a selector limits which of its objects are reconciled (and cached) at all. */
  for(kind: KindRef, opts: SourceOptions = {}): this {
    this.primary = kind;
    this.primaryPredicates = opts.predicates ?? [];
    this.primaryCache = cacheOptionsOf(opts);
    return this;
  }

  /**
   * Filters events of the primary kind only (e.g. `generationChanged`), as `for(kind, {predicates})`
   * does; owned and watched kinds take theirs in `owns`/`watches` options. Not controller-runtime's
   * `WithEventFilter`, which filters every source.
   */
  forPredicates(...predicates: Predicate[]): this {
    this.primaryPredicates.push(...predicates);
    return this;
  }

  /**
   * A change to an object of `kind` whose controller owner is a primary object enqueues that owner.
   * `labelSelector`/`fieldSelector` cache only the matching objects of the kind (e.g. the ones the
   * operator labels as its own), so it never lists every ConfigMap of the cluster.
   */
  owns(kind: KindRef, opts: SourceOptions = {}): this {
    this.pending.push((primary) => ({
      kind,
      predicates: opts.predicates ?? [],
      cache: cacheOptionsOf(opts),
      optional: opts.optional ?? false,
      toKeys: (obj) => {
        const k = controllerOwnerKey(obj, primary);
        return k ? [k] : [];
      },
    }));
    return this;
  }

  /** A change to an object of `kind` enqueues the primary objects `map` names (EnqueueRequestsFromMapFunc). */
  watches(kind: KindRef, map: MapFn, opts: SourceOptions = {}): this {
    this.pending.push((primary) => ({
      kind,
      predicates: opts.predicates ?? [],
      cache: cacheOptionsOf(opts),
      optional: opts.optional ?? false,
      toKeys: mapToKeys(map, primary),
    }));
    return this;
  }

  /**
   * A change to an object of `kind` enqueues the primary objects of its namespace (all of them for
   * a cluster-scoped primary) whose `names(primary)` include its name: the Secret or Service a spec
   * names by name. Read from the cache, so it costs no request. With `byName`, only the named
   * objects are watched (see `ReferenceOptions.byName`), and only the primaries naming one are woken.
   */
  referencedBy(
    kind: KindRef,
    names: (primary: T) => readonly (string | undefined)[],
    opts: ReferenceOptions = {},
  ): this {
    if (opts.byName) return this.watchesNamed(kind, names);
    this.pending.push((primary, cache) => ({
      kind,
      predicates: opts.predicates ?? [],
      cache: cacheOptionsOf(opts),
      optional: opts.optional ?? false,
      toKeys: (obj) => {
        const name = obj.metadata.name;
        const namespace = obj.metadata.namespace;
        const candidates = cache.list<T>(primary, primary.namespaced && namespace ? { namespace } : {});
        return candidates.filter((p) => names(p).includes(name)).map((p) => keyOf(p));
      },
    }));
    return this;
  }

  /**
   * Watches, by name, the objects `refs(primary)` names (a bare name is in the primary's namespace;
   * a ref may name another namespace, e.g. a BareMetalHost's BMC Secret), while a primary names
   * them; a change wakes the primaries naming the object. Nothing else of the kind is listed.
   */
  watchesNamed(kind: KindRef, refs: (primary: T) => readonly (string | ObjectRef | undefined)[]): this {
    this.named.push({ kind, names: refs as NamedSource['names'] });
    return this;
  }

  reconcile(fn: Reconciler<T>): Controller<T> {
    const primary = this.primary;
    if (!primary) throw new TypeError('controller: call for(kind) (or pass { for }) before reconcile()');
    const name = this.opts.name ?? primary.kind.toLowerCase();
    const deps = typeof this.deps === 'function' ? this.deps(name) : this.deps;
    const sources: Source[] = [
      {
        kind: primary,
        predicates: this.primaryPredicates,
        cache: this.primaryCache,
        toKeys: (o) => [keyOf(o)],
      },
      ...this.pending.map((make) => make(primary, deps.cache)),
    ];
    const c = new Controller<T>(name, primary, sources, fn, deps, this.opts, this.named);
    this.register(c);
    return c;
  }
}

/**
 * A running controller: informer events become keys in one work queue; a worker reads the object
 * for a key from the cache (never from the event) and runs the reconciler. Workers start only once
 * every informer the controller reads is synced.
 */
export class Controller<T extends KubeObject = KubeObject> {
  private queue: WorkQueue | undefined;
  private unsubscribe: (() => void)[] = [];
  private stopSignal: AbortController | undefined;
  /** Settles when the runs a stop abandoned at its deadline have ended (they ignored their signal). */
  private abandonedRuns: Promise<void> | undefined;
  private readonly namedWatches: { source: NamedSource; watches: NamedObjectWatches }[];
  private readonly optionalWatches: OptionalKindWatch[];
  /** Each optional source's watch (pooled by kind and selectors). */
  private readonly optionalOf = new Map<Source, OptionalKindWatch>();
  /** The namespaces already told (by an Event) that an optional kind is polled, per kind. */
  private readonly degradedTold = new Map<OptionalKindWatch, Set<string>>();
  /** What reconcilers read: the shared cache, plus the named and optional watches. */
  private readonly reader: CacheReader & OptionalKindReader;

  constructor(
    readonly name: string,
    readonly primary: KindRef,
    private readonly sources: Source[],
    private readonly reconciler: Reconciler<T>,
    private readonly deps: ControllerDeps,
    private readonly opts: ControllerOptions,
    named: readonly NamedSource[] = [],
  ) {
    // Create the informers now, so the cache starts them with everything else.
    for (const s of sources) if (!s.optional) deps.cache.informer(s.kind, s.cache);
    // One watch per optional kind (and selectors) for the process, whichever controllers declare it.
    for (const s of sources)
      if (s.optional)
        this.optionalOf.set(
          s,
          deps.cache.optionalWatch(s.kind, {
            ...s.cache,
            ...(opts.optionalKindRecheckMs ? { recheckMs: opts.optionalKindRecheckMs } : {}),
          }),
        );
    this.optionalWatches = [...new Set(this.optionalOf.values())];
    this.namedWatches = named.map((source) => ({
      source,
      watches: new NamedObjectWatches(
        deps.client,
        source.kind,
        (keys) => {
          for (const k of keys) this.queue?.add(k);
        },
        // One watch per named object for the whole manager, whichever of its controllers name it.
        { logger: deps.logger, scope: deps.cache },
      ),
    }));
    this.reader = this.makeReader();
  }

  /** How many objects this controller watches by name (see `ReferenceOptions.byName`). */
  get namedWatchCount(): number {
    return this.namedWatches.reduce((n, w) => n + w.watches.size, 0);
  }

  /** The kinds this controller reads (for sync gating and readiness). */
  get kinds(): KindRef[] {
    return this.sources.filter((s) => !s.optional).map((s) => s.kind);
  }

  /** The kinds whose CRD may be absent, and whether each is watched now. */
  get optionalKinds(): { kind: KindRef; watching: boolean }[] {
    return this.optionalWatches.map((w) => ({ kind: w.kind, watching: w.watching }));
  }

  get running(): boolean {
    return this.queue !== undefined;
  }

  /** Queue statistics, for tests and benchmarks. */
  get stats(): { depth: number; running: number; scheduled: number } {
    const q = this.queue;
    return { depth: q?.depth ?? 0, running: q?.running ?? 0, scheduled: q?.scheduled ?? 0 };
  }

  /** Enqueues a key by hand (e.g. from a timer or an external trigger). */
  enqueue(ref: ObjectRef | string): void {
    this.queue?.add(typeof ref === 'string' ? ref : keyOf(ref));
  }

  /** No key queued or running, and the Events the passes sent without awaiting them are written. */
  async whenIdle(): Promise<void> {
    await this.queue?.whenIdle();
    await this.deps.recorder.settled?.();
  }

  /**
   * Once its informers and the rest of the process's have synced (`cachesSynced`), subscribes to
   * them, enqueues every cached primary object and runs.
   */
  async start(): Promise<void> {
    if (this.queue) return;
    const concurrency = Math.max(1, this.opts.concurrency ?? 1);
    const stop = new AbortController();
    this.stopSignal = stop;
    const queue = new WorkQueue((key, signal) => this.handle(key, signal), {
      concurrency,
      metrics: this.deps.metrics.queue,
      ...(this.opts.backoff ? { backoff: this.opts.backoff } : {}),
    });
    this.queue = queue;
    this.deps.metrics.maxConcurrency(concurrency);
    for (const w of this.optionalWatches) w.start();
    await Promise.all([
      this.deps.cache.waitForSync(this.kinds, stop.signal),
      this.optionalDecisions(stop.signal),
      this.deps.cachesSynced?.(),
    ]);
    // Starting workers while an abandoned run goes on could run its key twice at once.
    await this.abandonedRuns;
    if (stop.signal.aborted) return;
    // Subscribed only now, in the same turn as every cached primary is queued: what the initial
    // lists brought is in the cache and reaches the passes through their primaries, so start-up
    // spends no time mapping each listed object to keys (ADR 0061).
    const requeueAll = (): void => {
      for (const obj of this.deps.cache.informer(this.primary).list()) queue.add(keyOf(obj));
    };
    const crdSchemas = this.deps.crdSchemas?.();
    if (crdSchemas) {
      const crd = crdNameOf(this.primary);
      // A changed verdict on the primary's CRD is news for every object of the kind.
      this.unsubscribe.push(
        crdSchemas.onChange((name) => {
          if (name === crd) requeueAll();
        }),
      );
    }
    // A CRD installed or removed while running changes what the passes find: each primary looks again.
    for (const w of this.optionalWatches) this.unsubscribe.push(w.onPresence(requeueAll));
    for (const s of this.sources) {
      const source = this.optionalOf.get(s) ?? this.deps.cache.informer(s.kind);
      this.unsubscribe.push(
        source.on((e) => {
          if (s.predicates.every((p) => p(e))) for (const k of keysOfEvent(e, s.toKeys)) queue.add(k);
        }),
      );
    }
    requeueAll();
    this.deps.logger.info({ controller: this.name }, 'informers synced, starting workers');
    queue.start();
  }

  /** Stops taking work; in-flight reconciles get until the deadline (0 = abort them now). */
  async stop(deadlineMs = 30_000): Promise<ShutdownResult> {
    const queue = this.queue;
    if (!queue) return { drained: true, abandoned: [] };
    this.stopSignal?.abort();
    for (const u of this.unsubscribe.splice(0)) u();
    const res = await queue.shutdown(deadlineMs);
    this.queue = undefined;
    // Started again by the reconciles after the next start(); a watch other controllers still
    // need goes on.
    await Promise.all(this.namedWatches.map((w) => w.watches.stop()));
    await Promise.all(this.optionalWatches.map((w) => w.stop()));
    if (!res.drained) this.abandonedRuns = queue.whenIdle();
    return res;
  }

  /**
   * Each optional kind's first answer (absent, or listed), all at once: one list per kind, so
   * the first passes read them from the watches instead of the API server. Capped: a kind that
   * cannot be listed (RBAC) must not hold the workers; reads of it then go to the API server.
   */
  private async optionalDecisions(signal: AbortSignal): Promise<void> {
    if (!this.optionalWatches.length) return;
    const cap = new AbortController();
    const onStop = (): void => cap.abort();
    signal.addEventListener('abort', onStop, { once: true });
    const timer = setTimeout(() => cap.abort(), OPTIONAL_DECISION_WAIT_MS);
    try {
      await Promise.all(this.optionalWatches.map((w) => w.whenDecided(cap.signal)));
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', onStop);
    }
  }

  /**
   * The shared cache, except that objects watched by name are read from their own watches; and
   * the optional kinds' lookups (`OptionalKindReader`).
   */
  private makeReader(): CacheReader & OptionalKindReader {
    const shared = this.deps.cache;
    return {
      get: <O extends KubeObject>(kind: KindRef, ref: ObjectRef | string): O | undefined => {
        if (this.namedWatches.length) {
          const r = typeof ref === 'string' ? refOfKey(ref) : ref;
          for (const { source, watches } of this.namedWatches) {
            if (source.kind !== kind && !sameKind(source.kind, kind)) continue;
            const hit = watches.lookup<O>(r);
            if (hit.watched) return hit.obj;
          }
        }
        // An optional kind, unless some controller caches it as a required one.
        const w = shared.has(kind) ? undefined : this.optionalWatchOf(kind);
        if (!w) return shared.get<O>(kind, ref);
        const served = w.served();
        if (served === false) return undefined;
        const hit = w.lookup<O>(typeof ref === 'string' ? refOfKey(ref) : ref);
        if (served && hit.known) return hit.obj;
        throw notKnownYet(kind);
      },
      list: <O extends KubeObject>(kind: KindRef, opts?: CacheListOptions): O[] => {
        const w = shared.has(kind) ? undefined : this.optionalWatchOf(kind);
        if (!w) return shared.list<O>(kind, opts);
        const known = w.list<O>(opts);
        if (!known) throw notKnownYet(kind);
        return known;
      },
      lookupOptional: <O extends KubeObject>(kind: KindRef, ref: ObjectRef): OptionalLookup<O> => {
        const w = this.optionalWatchOf(kind);
        return w ? w.lookup<O>(ref) : { known: false };
      },
      servedOptional: (kind: KindRef): boolean | undefined => this.optionalWatchOf(kind)?.served(),
    };
  }

  private optionalWatchOf(kind: KindRef): OptionalKindWatch | undefined {
    return this.optionalWatches.find((o) => o.kind === kind || sameKind(o.kind, kind));
  }

  /**
   * Once per namespace: a Warning Event on a primary naming the optional kinds whose CRD cannot be
   * watched (an older chart's RBAC), as each such kind is first seen there.
   */
  private async tellDegraded(obj: T): Promise<void> {
    const ns = obj.metadata.namespace ?? '';
    const untold = this.optionalWatches.filter((w) => w.degraded && !this.degradedTold.get(w)?.has(ns));
    if (!untold.length) return;
    for (const w of untold) {
      const told = this.degradedTold.get(w) ?? new Set<string>();
      told.add(ns);
      this.degradedTold.set(w, told);
    }
    const crds = untold.map((w) => crdNameOf(w.kind)).join(', ');
    await this.deps.recorder.warning(
      obj,
      'OptionalKindPolled',
      `cannot watch CustomResourceDefinition ${crds} (forbidden: the chart's RBAC predates this version); ` +
        'those kinds are read from the API server and their CRDs looked for every 30 s to 5 min',
    );
  }

  private async handle(key: string, signal: AbortSignal): Promise<Outcome> {
    const obj = this.deps.cache.get<T>(this.primary, key);
    // Gone from the cache: deleted (finalizers, if any, were handled while it still existed).
    if (!obj) {
      for (const w of this.namedWatches) w.watches.release(key);
      return 'success';
    }
    const log = forObject(this.deps.logger.child({ controller: this.name }), this.primary.kind, key);
    const ctx: ReconcileContext = {
      client: this.deps.client,
      cache: this.reader,
      recorder: this.deps.recorder,
      log,
      key,
      ref: refOfKey(key),
      signal,
      controller: this.name,
    };
    const mismatch = this.deps.crdSchemas?.()?.mismatch(crdNameOf(this.primary));
    if (mismatch) ctx.crdSchemaMismatch = mismatch;
    const started = performance.now();
    const seconds = (): number => (performance.now() - started) / 1000;
    try {
      if (this.optionalWatches.length) await this.tellDegraded(obj);
      const namespace = obj.metadata.namespace;
      await Promise.all(
        this.namedWatches.map(({ source, watches }) =>
          watches.track(
            key,
            source.names(obj).flatMap((n): ObjectRef[] => {
              if (!n) return [];
              if (typeof n !== 'string') return [n];
              return [namespace ? { namespace, name: n } : { name: n }];
            }),
            signal,
          ),
        ),
      );
      const res = await this.reconciler(obj, ctx);
      const after = res?.requeueAfterMs;
      if (after !== undefined && after > 0) {
        this.deps.metrics.reconciled('requeue_after', seconds());
        log.debug({ requeueAfterMs: after }, 'reconciled, requeue scheduled');
        return { requeueAfterMs: after };
      }
      this.deps.metrics.reconciled('success', seconds());
      log.debug('reconciled');
      const resync = this.opts.resyncMs ?? DEFAULT_RESYNC_MS;
      return resync === false ? 'success' : { requeueAfterMs: resync };
    } catch (err) {
      const action = this.opts.errorPolicy?.(err, obj) ?? defaultErrorPolicy(err);
      const message = err instanceof Error ? err.message : String(err);
      if (action === 'terminal') {
        const reason = err instanceof ReconcileError ? err.reason : 'ReconcileFailed';
        this.deps.metrics.reconciled('error', seconds(), true);
        log.error({ reason, err: message }, 'reconcile failed on invalid input; not retrying');
        await this.deps.recorder.warning(obj, reason, message);
        return 'terminal';
      }
      this.deps.metrics.reconciled('error', seconds());
      if (action === 'backoff') {
        log.warn({ err: message }, 'reconcile failed; will retry');
        return 'error';
      }
      log.warn({ err: message, requeueAfterMs: action.requeueAfterMs }, 'reconcile failed; will retry later');
      return { requeueAfterMs: Math.max(1, action.requeueAfterMs) };
    }
  }
}
