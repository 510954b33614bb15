import type { Logger } from 'pino';
import type { KindRef } from '../client/kinds.js';
import type { KubeClient, KubeObject, ObjectRef } from '../client/types.js';
import { Informer, type InformerOptions } from './informer.js';

/**
 * Watches single objects by name for the primary objects that name them: a Secret a CR's spec
 * names, say. Each named object gets its own list+watch with `fieldSelector=metadata.name=<name>`
 * in its namespace, started when the first primary names it and stopped when the last one stops
 * naming it, so the operator never lists or caches other objects of the kind (no cluster-wide
 * Secret cache). A change to a watched object enqueues every primary that names it.
 */
export class NamedObjectWatches {
  private readonly watches = new Map<string, { informer: Informer; primaries: Set<string> }>();
  /** Primary key → the keys (`namespace/name`) of the objects it names. */
  private readonly named = new Map<string, Set<string>>();

  constructor(
    private readonly client: KubeClient,
    readonly kind: KindRef,
    private readonly enqueue: (primaryKeys: string[]) => void,
    private readonly opts: {
      logger?: Logger;
      informer?: Omit<InformerOptions, 'namespaces' | 'fieldSelector'>;
      /** How long a reconcile waits for a new watch's first list (default 10 s). */
      syncTimeoutMs?: number;
    } = {},
  ) {}

  /**
   * Makes the watched set for `primaryKey` exactly `refs`, and resolves once each of them has been
   * listed (so a read right after sees the object, or knows it does not exist).
   */
  async track(primaryKey: string, refs: readonly ObjectRef[], signal?: AbortSignal): Promise<void> {
    const wanted = new Set(refs.filter((r) => r.name).map((r) => objectKey(r)));
    const before = this.named.get(primaryKey) ?? new Set<string>();
    for (const key of before) if (!wanted.has(key)) this.unref(key, primaryKey);
    if (wanted.size) this.named.set(primaryKey, wanted);
    else this.named.delete(primaryKey);
    const waits: Promise<void>[] = [];
    for (const key of wanted) {
      let w = this.watches.get(key);
      if (!w) {
        const { namespace, name } = refOfObjectKey(key);
        const informer = new Informer(this.client, this.kind, {
          ...this.opts.informer,
          ...(namespace ? { namespaces: [namespace] } : {}),
          fieldSelector: `metadata.name=${name}`,
          ...(this.opts.logger ? { logger: this.opts.logger } : {}),
        });
        w = { informer, primaries: new Set() };
        const primaries = w.primaries;
        // The first list is what track() waits for; only later changes wake the primaries.
        informer.on(() => {
          if (informer.synced()) this.enqueue([...primaries]);
        });
        this.watches.set(key, w);
        informer.start();
      }
      w.primaries.add(primaryKey);
      waits.push(w.informer.waitForSync(signal));
    }
    // A list that keeps failing (RBAC, API server down) must not hold the worker: after the
    // timeout the reconcile goes on and sees the object as absent, and the watch keeps trying.
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all(waits),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, this.opts.syncTimeoutMs ?? 10_000);
      }),
    ]);
    clearTimeout(timer);
  }

  /** Stops watching what `primaryKey` named (it was deleted). */
  release(primaryKey: string): void {
    for (const key of this.named.get(primaryKey) ?? []) this.unref(key, primaryKey);
    this.named.delete(primaryKey);
  }

  /** Whether `ref` is watched, and the object if it exists. */
  lookup<T extends KubeObject>(ref: ObjectRef): { watched: boolean; obj: T | undefined } {
    const w = this.watches.get(objectKey(ref));
    return { watched: w !== undefined, obj: w?.informer.get(ref) as T | undefined };
  }

  /** How many objects are watched (for tests and metrics). */
  get size(): number {
    return this.watches.size;
  }

  async stop(): Promise<void> {
    const all = [...this.watches.values()];
    this.watches.clear();
    this.named.clear();
    await Promise.all(all.map((w) => w.informer.stop()));
  }

  private unref(key: string, primaryKey: string): void {
    const w = this.watches.get(key);
    if (!w) return;
    w.primaries.delete(primaryKey);
    if (w.primaries.size === 0) {
      this.watches.delete(key);
      void w.informer.stop();
    }
  }
}

const objectKey = (r: ObjectRef): string => `${r.namespace ?? ''}/${r.name}`;

function refOfObjectKey(key: string): ObjectRef {
  const i = key.indexOf('/');
  const namespace = key.slice(0, i);
  return namespace ? { namespace, name: key.slice(i + 1) } : { name: key.slice(i + 1) };
}
