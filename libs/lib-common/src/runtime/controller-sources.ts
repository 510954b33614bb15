import type { Logger } from 'pino';
import { type KindRef, kindKey } from '../client/kinds.js';
import type { KubeClient, KubeObject, ObjectRef } from '../client/types.js';
import { Informer, type InformerOptions } from './informer.js';

/** One named object's list+watch, and who names it: each controller's watches → its primaries. */
interface SharedWatch {
  informer: Informer;
  refs: Map<NamedObjectWatches, Set<string>>;
}

interface SharedNamedWatchOptions {
  logger?: Logger;
  informer?: Omit<InformerOptions, 'namespaces' | 'fieldSelector'>;
}

/**
 * The named-object watches of one kind for a whole manager: one list+watch per named object,
 * whatever the number of controllers naming it (a KeystoneAPI, its KeystoneServices and its
 * KeystoneEndpoints all read osp-secret), counted by (controller, primary) and stopped when the
 * last of them stops naming it. Each change wakes, in every controller, the primaries naming it.
 */
class SharedNamedWatches {
  private readonly watches = new Map<string, SharedWatch>();

  constructor(
    private readonly client: KubeClient,
    private readonly kind: KindRef,
    private readonly opts: SharedNamedWatchOptions,
  ) {}

  /** Adds `by`'s reference from `primaryKey` to the object `key`, starting its watch if it is the first. */
  ref(key: string, by: NamedObjectWatches, primaryKey: string): Informer {
    let w = this.watches.get(key);
    if (!w) {
      const { namespace, name } = refOfObjectKey(key);
      const informer = new Informer(this.client, this.kind, {
        ...this.opts.informer,
        ...(namespace ? { namespaces: [namespace] } : {}),
        fieldSelector: `metadata.name=${name}`,
        ...(this.opts.logger ? { logger: this.opts.logger } : {}),
      });
      const refs = new Map<NamedObjectWatches, Set<string>>();
      w = { informer, refs };
      // The first list is what track() waits for; only later changes wake the primaries.
      informer.on(() => {
        if (informer.synced()) for (const [watches, primaries] of refs) watches.wake([...primaries]);
      });
      this.watches.set(key, w);
      informer.start();
    }
    let primaries = w.refs.get(by);
    if (!primaries) {
      primaries = new Set();
      w.refs.set(by, primaries);
    }
    primaries.add(primaryKey);
    return w.informer;
  }

  /** Drops one reference; the watch stops with the last one. */
  unref(key: string, by: NamedObjectWatches, primaryKey: string): Promise<void> {
    const w = this.watches.get(key);
    const primaries = w?.refs.get(by);
    if (!w || !primaries) return Promise.resolve();
    primaries.delete(primaryKey);
    if (primaries.size === 0) w.refs.delete(by);
    if (w.refs.size > 0) return Promise.resolve();
    this.watches.delete(key);
    return w.informer.stop();
  }

  /** The watch of `key` if `by` names it (a controller reads only what it named and waited for). */
  lookup(key: string, by: NamedObjectWatches): SharedWatch | undefined {
    const w = this.watches.get(key);
    return w?.refs.has(by) ? w : undefined;
  }
}

/** Per manager (its cache stands for it), per kind. */
const sharedByScope = new WeakMap<object, Map<string, SharedNamedWatches>>();

function sharedNamedWatches(
  scope: object,
  client: KubeClient,
  kind: KindRef,
  opts: SharedNamedWatchOptions,
): SharedNamedWatches {
  let byKind = sharedByScope.get(scope);
  if (!byKind) {
    byKind = new Map();
    sharedByScope.set(scope, byKind);
  }
  let shared = byKind.get(kindKey(kind));
  if (!shared) {
    shared = new SharedNamedWatches(client, kind, opts);
    byKind.set(kindKey(kind), shared);
  }
  return shared;
}

/**
 * Watches single objects by name for the primary objects that name them: a Secret a CR's spec
 * names, say. Each named object gets its own list+watch with `fieldSelector=metadata.name=<name>`
 * in its namespace, started when the first primary names it and stopped when the last one stops
 * naming it, so the operator never lists or caches other objects of the kind (no cluster-wide
 * Secret cache). A change to a watched object enqueues every primary that names it. The watches
 * are shared by every controller created with the same `scope` (the manager's cache): one
 * list+watch per object for the manager, however many controllers name it.
 */
export class NamedObjectWatches {
  private readonly shared: SharedNamedWatches;
  /** Primary key → the keys (`namespace/name`) of the objects it names. */
  private readonly named = new Map<string, Set<string>>();

  constructor(
    client: KubeClient,
    readonly kind: KindRef,
    private readonly enqueue: (primaryKeys: string[]) => void,
    private readonly opts: SharedNamedWatchOptions & {
      /** What the watches are shared within (the manager's cache); default this instance alone. */
      scope?: object;
      /** How long a reconcile waits for a new watch's first list (default 10 s). */
      syncTimeoutMs?: number;
    } = {},
  ) {
    const { scope, syncTimeoutMs: _timeout, ...shared } = opts;
    this.shared = sharedNamedWatches(scope ?? this, client, kind, shared);
  }

  /**
   * Makes the watched set for `primaryKey` exactly `refs`, and resolves once each of them has been
   * listed (so a read right after sees the object, or knows it does not exist).
   */
  async track(primaryKey: string, refs: readonly ObjectRef[], signal?: AbortSignal): Promise<void> {
    const wanted = new Set(refs.filter((r) => r.name).map((r) => objectKey(r)));
    const before = this.named.get(primaryKey) ?? new Set<string>();
    for (const key of before) if (!wanted.has(key)) void this.shared.unref(key, this, primaryKey);
    if (wanted.size) this.named.set(primaryKey, wanted);
    else this.named.delete(primaryKey);
    const waits = [...wanted].map((key) => this.shared.ref(key, this, primaryKey).waitForSync(signal));
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
    for (const key of this.named.get(primaryKey) ?? []) void this.shared.unref(key, this, primaryKey);
    this.named.delete(primaryKey);
  }

  /** Whether this controller watches `ref`, and the object if it exists. */
  lookup<T extends KubeObject>(ref: ObjectRef): { watched: boolean; obj: T | undefined } {
    const w = this.shared.lookup(objectKey(ref), this);
    return { watched: w !== undefined, obj: w?.informer.get(ref) as T | undefined };
  }

  /** How many objects this controller names (for tests and metrics). */
  get size(): number {
    return new Set([...this.named.values()].flatMap((keys) => [...keys])).size;
  }

  /** Drops every reference of this controller; watches no other controller needs stop. */
  async stop(): Promise<void> {
    const stops = [...this.named].flatMap(([primaryKey, keys]) =>
      [...keys].map((key) => this.shared.unref(key, this, primaryKey)),
    );
    this.named.clear();
    await Promise.all(stops);
  }

  /** Called by the shared watch when an object these primaries name changed. */
  wake(primaryKeys: string[]): void {
    this.enqueue(primaryKeys);
  }
}

const objectKey = (r: ObjectRef): string => `${r.namespace ?? ''}/${r.name}`;

function refOfObjectKey(key: string): ObjectRef {
  const i = key.indexOf('/');
  const namespace = key.slice(0, i);
  return namespace ? { namespace, name: key.slice(i + 1) } : { name: key.slice(i + 1) };
}
