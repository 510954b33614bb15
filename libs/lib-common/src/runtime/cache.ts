import type { Logger } from 'pino';
import { type KindRef, kindKey } from '../resources/kinds.js';
import type { KubeClient, KubeObject, ObjectRef } from '../resources/types.js';
import { Informer, type InformerMetrics, type InformerOptions } from './informer.js';
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
}

/** One shared informer per kind, so controllers watching the same kind list and watch it once. */
export class InformerCache implements CacheReader {
  private readonly informers = new Map<string, Informer>();
  private running = false;

  constructor(
    private readonly client: KubeClient,
    private readonly opts: InformerCacheOptions = {},
  ) {}

  /** The informer of a kind, created on first use (and started if the cache runs). */
  informer<T extends KubeObject>(kind: KindRef): Informer<T> {
    const key = kindKey(kind);
    let inf = this.informers.get(key);
    if (!inf) {
      inf = new Informer(this.client, kind, {
        ...this.opts.informer,
        ...(this.opts.namespaces ? { namespaces: this.opts.namespaces } : {}),
        ...(this.opts.logger ? { logger: this.opts.logger } : {}),
        ...(this.opts.metrics ? { metrics: this.opts.metrics } : {}),
      });
      this.informers.set(key, inf);
      if (this.running) inf.start();
    }
    return inf as unknown as Informer<T>;
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
