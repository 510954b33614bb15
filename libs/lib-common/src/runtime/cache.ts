import type { Logger } from 'pino';
import { type KindRef, kindKey } from '../client/kinds.js';
import type { KubeClient, KubeObject, ObjectRef } from '../client/types.js';
import { Informer, type InformerMetrics, type InformerOptions } from './informer.js';
import { OptionalKindWatch } from './optional-watch.js';
import type { CacheListOptions } from './store.js';

/** What reconcilers read: objects of the watched kinds, straight from the informers. */
export interface CacheReader {
  get<T extends KubeObject>(kind: KindRef, ref: ObjectRef | string): T | undefined;
  list<T extends KubeObject>(kind: KindRef, opts?: CacheListOptions): T[];
}

export interface InformerCacheOptions {
  namespaces?: string[];
  logger?: Logger;
  metrics?: InformerMetrics;
  /** Options passed to every informer (timeouts, backoff, transform). */
  informer?: Omit<InformerOptions, 'namespaces' | 'logger' | 'metrics'>;
  /**
   * Informers shared with the other caches of this process (several operators in one, ADR 0044),
   * by kind and selectors: a kind two of them cache alike is listed and watched once, while each
   * keeps its own selectors.
   */
  pool?: Map<string, Informer>;
  /** The same for the watches of optional kinds (`optionalWatch`). */
  optionalPool?: Map<string, OptionalKindWatch>;
}

/** What may differ between the informers of one cache: which objects of the kind are cached at all. */
export interface KindCacheOptions {
  /** Only objects with these labels are listed, watched and cached (`a=b,c in (d)`). */
  labelSelector?: string;
  fieldSelector?: string;
}

const sameOptions = (a: KindCacheOptions, b: KindCacheOptions): boolean =>
  (a.labelSelector ?? '') === (b.labelSelector ?? '') && (a.fieldSelector ?? '') === (b.fieldSelector ?? '');

/** The selectors of `o` that are set, as informer options. */
const selectorsOf = (o: KindCacheOptions): KindCacheOptions => ({
  ...(o.labelSelector ? { labelSelector: o.labelSelector } : {}),
  ...(o.fieldSelector ? { fieldSelector: o.fieldSelector } : {}),
});

/** The key of a shared informer or optional watch: the kind and its selectors. */
const pooledKey = (kind: KindRef, o: KindCacheOptions): string =>
  `${kindKey(kind)} ${o.labelSelector ?? ''} ${o.fieldSelector ?? ''}`;

const describeOptions = (o: KindCacheOptions): string =>
  [o.labelSelector && `labels ${o.labelSelector}`, o.fieldSelector && `fields ${o.fieldSelector}`]
    .filter(Boolean)
    .join(', ') || 'everything';

/**
 * One shared informer per kind, so controllers watching the same kind list and watch it once.
 * A kind may be cached through a selector (controller-runtime's `ByObject`): the first declaration
 * fixes it, and a second one asking for other objects of that kind is an error, since the two
 * controllers would silently read different caches.
 */
export class InformerCache implements CacheReader {
  private readonly informers = new Map<string, Informer>();
  private readonly options = new Map<string, KindCacheOptions>();
  /** The optional kinds' watches, when no pool is shared with other caches. */
  private readonly optional = new Map<string, OptionalKindWatch>();
  private running = false;

  constructor(
    private readonly client: KubeClient,
    private readonly opts: InformerCacheOptions = {},
  ) {}

  /** The namespaces every informer of this cache watches (all when undefined). */
  get namespaces(): readonly string[] | undefined {
    return this.opts.namespaces;
  }

  /**
   * The informer of a kind, created on first use (and started if the cache runs). `opts` limits
   * what is cached of the kind; without them an existing informer is returned whatever its options.
   */
  informer<T extends KubeObject>(kind: KindRef, opts?: KindCacheOptions): Informer<T> {
    const key = kindKey(kind);
    let inf = this.informers.get(key);
    if (inf && opts) {
      const have = this.options.get(key) ?? {};
      if (!sameOptions(have, opts))
        throw new Error(
          `${kind.kind} is already cached with ${describeOptions(have)}; cannot also cache it with ${describeOptions(opts)}`,
        );
    }
    if (!inf) {
      const own = opts ?? {};
      this.options.set(key, own);
      const pooled = pooledKey(kind, own);
      inf =
        this.opts.pool?.get(pooled) ??
        new Informer(this.client, kind, {
          ...this.opts.informer,
          ...selectorsOf(own),
          ...(this.opts.namespaces ? { namespaces: this.opts.namespaces } : {}),
          ...(this.opts.logger ? { logger: this.opts.logger } : {}),
          ...(this.opts.metrics ? { metrics: this.opts.metrics } : {}),
        });
      this.opts.pool?.set(pooled, inf);
      this.informers.set(key, inf);
      if (this.running) inf.start();
    }
    return inf as unknown as Informer<T>;
  }

  /**
   * The watch of an optional kind (one whose CRD another operator installs; see
   * `OptionalKindWatch`), created on first use and shared like the informers: the controllers of
   * this cache, and of the process's other caches, that declare the kind subscribe to one watch of
   * its CRD and, once it is served, one informer. Selectors limit what that informer caches, as
   * for `informer` (one watch per kind and selectors). `recheckMs` is the first declaration's.
   */
  optionalWatch(kind: KindRef, opts: { recheckMs?: number } & KindCacheOptions = {}): OptionalKindWatch {
    const key = pooledKey(kind, opts);
    const shared = this.opts.optionalPool ?? this.optional;
    let watch = shared.get(key);
    if (!watch) {
      watch = new OptionalKindWatch(this.client, kind, {
        namespaces: this.opts.namespaces,
        ...(this.opts.logger ? { logger: this.opts.logger } : {}),
        ...(opts.recheckMs ? { recheckMs: opts.recheckMs } : {}),
        informer: selectorsOf(opts),
      });
      shared.set(key, watch);
    }
    return watch;
  }

  has(kind: KindRef): boolean {
    return this.informers.has(kindKey(kind));
  }

  get<T extends KubeObject>(kind: KindRef, ref: ObjectRef | string): T | undefined {
    return this.watched<T>(kind).get(ref);
  }

  list<T extends KubeObject>(kind: KindRef, opts?: CacheListOptions): T[] {
    return this.watched<T>(kind).list(opts);
  }

  start(): void {
    this.running = true;
    for (const inf of this.informers.values()) inf.start();
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all([...this.informers.values()].map((i) => i.stop()));
  }

  synced(): boolean {
    return [...this.informers.values()].every((i) => i.synced());
  }

  /** Resolves once the given kinds (default: all) are synced, or the signal aborted. */
  async waitForSync(kinds?: KindRef[], signal?: AbortSignal): Promise<void> {
    const infs = kinds ? kinds.map((k) => this.informer(k)) : [...this.informers.values()];
    await Promise.all(infs.map((i) => i.waitForSync(signal)));
  }

  /** Every informer, for probes and metrics. */
  all(): Informer[] {
    return [...this.informers.values()];
  }

  private watched<T extends KubeObject>(kind: KindRef): Informer<T> {
    const inf = this.informers.get(kindKey(kind));
    // Reading a kind nobody watches would silently return nothing: make the mistake loud.
    if (!inf)
      throw new Error(
        `${kind.kind} is not in the cache: declare it with owns()/watches() or cache.informer()`,
      );
    return inf as unknown as Informer<T>;
  }
}
