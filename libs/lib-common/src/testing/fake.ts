import { KubeConfig } from '@kubernetes/client-node';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import type { RestKubeClient } from '../client/client.js';
import { RequestCounter, type Verb } from '../client/client-metrics.js';
import { ApiError } from '../client/errors.js';
import { isPlainObject } from '../client/json.js';
import { apiVersionOf, type KindRef, kindKey } from '../client/kinds.js';
import type {
  ApplyOptions,
  DeleteOptions,
  KubeObject,
  ListOptions,
  ObjectList,
  ObjectRef,
  PatchType,
  WatchEvent,
  WatchOptions,
} from '../client/types.js';
import type { CacheReader } from '../runtime/cache.js';
import type { ReconcileContext, ReconcileResult, Reconciler } from '../runtime/controller.js';
import { Manager, type ManagerOptions } from '../runtime/manager.js';
import type { EventRecorder, EventType } from '../runtime/recorder.js';
import { labelMatcher } from '../runtime/selector.js';
import { type CacheListOptions, keyOf } from '../runtime/store.js';

/** One request the fake answered. */
export interface FakeRequest {
  verb: 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'apply' | 'delete';
  kind: string;
  namespace?: string;
  name?: string;
  subresource?: 'status';
}

const WRITES = new Set<FakeRequest['verb']>(['create', 'update', 'patch', 'apply', 'delete']);

/** `metadata.name=x,metadata.namespace=y`, the field selectors tests use. */
function fieldMatcher(selector: string | undefined): (obj: KubeObject) => boolean {
  if (!selector) return () => true;
  const wanted = selector.split(',').map((term) => {
    const [field, value] = term.split('=');
    if (field !== 'metadata.name' && field !== 'metadata.namespace')
      throw new Error(`FakeKubeClient: unsupported field selector ${term}`);
    return { field, value: value ?? '' };
  });
  return (obj) =>
    wanted.every(({ field, value }) =>
      field === 'metadata.name' ? obj.metadata.name === value : (obj.metadata.namespace ?? '') === value,
    );
}

const clone = <T>(v: T): T => structuredClone(v);

function notFound(kind: KindRef, ref: ObjectRef): ApiError {
  return new ApiError({
    code: 404,
    reason: 'NotFound',
    message: `${kind.plural} "${ref.name}" not found`,
    details: { name: ref.name, kind: kind.plural },
  });
}

/** RFC 7386 JSON merge patch. */
function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isPlainObject(patch)) return clone(patch);
  const out: Record<string, unknown> = isPlainObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

const unescapePointer = (s: string) => s.replace(/~1/g, '/').replace(/~0/g, '~');

/** The JSON Patch operations the operators send (test, add, remove, replace). */
function jsonPatch(doc: KubeObject, ops: { op: string; path: string; value?: unknown }[]): KubeObject {
  const root = clone(doc) as unknown as Record<string, unknown>;
  for (const op of ops) {
    const parts = op.path.split('/').slice(1).map(unescapePointer);
    const last = parts.pop() ?? '';
    let parent: unknown = root;
    for (const p of parts) parent = (parent as Record<string, unknown> | undefined)?.[p];
    const container = parent as Record<string, unknown> | unknown[] | undefined;
    const current = Array.isArray(container) ? container[Number(last)] : container?.[last];
    const invalid = (why: string) =>
      new ApiError({ code: 422, reason: 'Invalid', message: `${op.op} ${op.path}: ${why}` });
    if (op.op === 'test') {
      // The real server's answer to a failed `test`: a 422 with this message and no causes.
      if (JSON.stringify(current ?? null) !== JSON.stringify(op.value ?? null))
        throw new ApiError({
          code: 422,
          reason: 'Invalid',
          message: 'the server rejected our request due to an error in our request',
        });
      continue;
    }
    if (container === undefined || container === null) throw invalid('path does not exist');
    if (Array.isArray(container)) {
      const i = last === '-' ? container.length : Number(last);
      if (op.op === 'add') container.splice(i, 0, clone(op.value));
      else if (op.op === 'remove') container.splice(i, 1);
      else if (op.op === 'replace') container[i] = clone(op.value);
    } else if (op.op === 'remove') delete (container as Record<string, unknown>)[last];
    else (container as Record<string, unknown>)[last] = clone(op.value);
  }
  return root as unknown as KubeObject;
}

const specOf = (o: KubeObject): unknown => {
  const { metadata: _m, status: _s, apiVersion: _a, kind: _k, ...rest } = o;
  return rest;
};

/**
 * An in-memory stand-in for the API server, for unit tests of steps and registrations: objects by
 * kind, resourceVersions, uids, generations bumped on spec changes, `/status` kept apart from the
 * rest, finalizers holding a deletion, server-side apply as "replace what the caller sends" (no
 * field ownership), merge and JSON patches, 404/409 like the real thing, and watches (resumable from
 * a resourceVersion), so a real `Manager` can run on it (`startFakeManager`). `cache()` reads its
 * objects directly, as if informers were always in sync. Integration tests keep the real control
 * plane.
 */
export class FakeKubeClient implements RestKubeClient {
  readonly fieldManager: string;
  readonly host = 'fake';
  /** Every request, in order (what `requests` counts by verb and code). */
  readonly calls: FakeRequest[] = [];
  readonly requests = new RequestCounter();
  private readonly store = new Map<string, Map<string, KubeObject>>();
  private readonly failures: { match: (r: FakeRequest) => boolean; error: unknown }[] = [];
  private readonly served: Set<string> | undefined;
  /** Every change, for watches that resume from a resourceVersion. */
  private readonly changes: { rv: number; kind: string; event: WatchEvent }[] = [];
  private readonly watchers = new Set<{ kind: string; send: (e: WatchEvent) => void }>();
  private version = 1;
  private uids = 0;

  /**
   * `served`: the kinds the fake API server knows; others answer 404 like a CRD that is not
   * installed (default: every kind).
   */
  constructor(opts: { fieldManager?: string; served?: readonly KindRef[] } = {}) {
    this.fieldManager = opts.fieldManager ?? 'stackops-test';
    this.served = opts.served ? new Set(opts.served.map(kindKey)) : undefined;
  }

  /** Nothing to connect to. */
  preconnect(): void {}

  close(): void {
    this.watchers.clear();
  }

  /** Puts objects in place without counting a request (the world before the test). */
  seed<T extends KubeObject = KubeObject>(kind: KindRef, ...objs: KubeObject[]): T[] {
    return objs.map((o) => this.put(kind, this.stamp(kind, clone(o))) as T);
  }

  /** Makes matching requests fail with `error` (e.g. an ApiError 500) until `clearFailures()`. */
  failOn(match: Partial<FakeRequest>, error: unknown): this {
    this.failures.push({
      match: (r) => Object.entries(match).every(([k, v]) => r[k as keyof FakeRequest] === v),
      error,
    });
    return this;
  }

  clearFailures(): void {
    this.failures.length = 0;
  }

  /** The number of write requests so far (create, update, patch, apply, delete). */
  writes(): number {
    return this.calls.filter((r) => WRITES.has(r.verb)).length;
  }

  /** The stored object (a copy), without counting a request. */
  peek<T extends KubeObject>(kind: KindRef, ref: ObjectRef): T | undefined {
    const obj = this.bucket(kind).get(this.key(kind, ref));
    return obj ? (clone(obj) as T) : undefined;
  }

  /** Every stored object of a kind (copies). */
  all<T extends KubeObject>(kind: KindRef): T[] {
    return [...this.bucket(kind).values()].map((o) => clone(o) as T);
  }

  /** A cache over this client's objects (always in sync), optionally only of the given kinds. */
  cache(kinds?: readonly KindRef[]): CacheReader {
    const allowed = kinds ? new Set(kinds.map(kindKey)) : undefined;
    const check = (kind: KindRef) => {
      if (allowed && !allowed.has(kindKey(kind)))
        throw new Error(
          `${kind.kind} is not in the cache: declare it with owns()/watches() or cache.informer()`,
        );
    };
    return {
      get: <T extends KubeObject>(kind: KindRef, ref: ObjectRef | string) => {
        check(kind);
        const key = typeof ref === 'string' ? ref : this.key(kind, ref);
        const obj = this.bucket(kind).get(key);
        return obj ? (clone(obj) as T) : undefined;
      },
      list: <T extends KubeObject>(kind: KindRef, opts: CacheListOptions = {}) => {
        check(kind);
        const match = labelMatcher(opts.labelSelector);
        return [...this.bucket(kind).values()]
          .filter((o) => opts.namespace === undefined || o.metadata.namespace === opts.namespace)
          .filter((o) => match(o.metadata.labels))
          .map((o) => clone(o) as T);
      },
    };
  }

  get<T extends KubeObject>(kind: KindRef, ref: ObjectRef): Promise<T | undefined> {
    return this.track(kind, { verb: 'get', kind: kind.kind, ...this.where(kind, ref) }, () =>
      this.peek<T>(kind, ref),
    );
  }

  list<T extends KubeObject>(kind: KindRef, opts: ListOptions = {}): Promise<ObjectList<T>> {
    const r: FakeRequest = {
      verb: 'list',
      kind: kind.kind,
      ...(opts.namespace ? { namespace: opts.namespace } : {}),
    };
    return this.track(kind, r, () => {
      const fields = fieldMatcher(opts.fieldSelector);
      const items = this.cache()
        .list<T>(kind, {
          ...(opts.namespace ? { namespace: opts.namespace } : {}),
          ...(opts.labelSelector ? { labelSelector: opts.labelSelector } : {}),
        })
        .filter(fields);
      return { items, metadata: { resourceVersion: String(this.version) } };
    });
  }

  create<T extends KubeObject>(kind: KindRef, obj: T): Promise<T> {
    const ref = obj.metadata as ObjectRef;
    return this.track(kind, { verb: 'create', kind: kind.kind, ...this.where(kind, ref) }, () => {
      if (this.bucket(kind).has(this.key(kind, ref)))
        throw new ApiError({
          code: 409,
          reason: 'AlreadyExists',
          message: `${kind.plural} "${obj.metadata.name}" already exists`,
        });
      return this.put(kind, this.stamp(kind, clone(obj))) as T;
    });
  }

  replace<T extends KubeObject>(kind: KindRef, obj: T, opts: { subresource?: 'status' } = {}): Promise<T> {
    const ref = obj.metadata as ObjectRef;
    return this.track(kind, { verb: 'update', kind: kind.kind, ...this.where(kind, ref), ...opts }, () => {
      const live = this.live(kind, ref);
      if (obj.metadata.resourceVersion && obj.metadata.resourceVersion !== live.metadata.resourceVersion)
        throw new ApiError({ code: 409, reason: 'Conflict', message: 'the object has been modified' });
      return this.write(kind, live, clone(obj), opts.subresource) as T;
    });
  }

  apply<T extends KubeObject>(kind: KindRef, obj: T, opts: ApplyOptions = {}): Promise<T> {
    const ref = obj.metadata as ObjectRef;
    const r: FakeRequest = {
      verb: 'apply',
      kind: kind.kind,
      ...this.where(kind, ref),
      ...(opts.subresource ? { subresource: opts.subresource } : {}),
    };
    return this.track(kind, r, () => {
      const live = this.bucket(kind).get(this.key(kind, ref));
      if (!live) {
        if (opts.subresource) throw notFound(kind, ref);
        return this.put(kind, this.stamp(kind, clone(obj))) as T;
      }
      if (opts.subresource === 'status')
        return this.write(kind, live, { ...live, status: clone(obj['status']) }, 'status') as T;
      const merged: KubeObject = {
        ...clone(obj),
        metadata: {
          ...live.metadata,
          ...clone(obj.metadata),
          ...(obj.metadata.finalizers ? {} : { finalizers: live.metadata.finalizers }),
        },
      };
      if (!merged.metadata.finalizers) delete merged.metadata.finalizers;
      return this.write(kind, live, merged, undefined) as T;
    });
  }

  patch<T extends KubeObject>(
    kind: KindRef,
    ref: ObjectRef,
    patch: unknown,
    type: PatchType,
    opts: { subresource?: 'status' } = {},
  ): Promise<T> {
    if (type === 'apply') return this.apply(kind, patch as T, opts);
    return this.track(kind, { verb: 'patch', kind: kind.kind, ...this.where(kind, ref), ...opts }, () => {
      const live = this.live(kind, ref);
      let next: KubeObject;
      if (type === 'json') next = jsonPatch(live, patch as { op: string; path: string }[]);
      else {
        const rv = (patch as { metadata?: { resourceVersion?: string } }).metadata?.resourceVersion;
        if (rv && rv !== live.metadata.resourceVersion)
          throw new ApiError({ code: 409, reason: 'Conflict', message: 'the object has been modified' });
        next = mergePatch(live, patch) as KubeObject;
      }
      return this.write(kind, live, next, opts.subresource) as T;
    });
  }

  delete(kind: KindRef, ref: ObjectRef, _opts: DeleteOptions = {}): Promise<boolean> {
    return this.track(kind, { verb: 'delete', kind: kind.kind, ...this.where(kind, ref) }, () => {
      const live = this.bucket(kind).get(this.key(kind, ref));
      if (!live) return false;
      if (live.metadata.finalizers?.length) {
        if (!live.metadata.deletionTimestamp)
          this.put(
            kind,
            this.bumped({
              ...live,
              metadata: { ...live.metadata, deletionTimestamp: new Date().toISOString() },
            }),
          );
        return true;
      }
      this.remove(kind, live);
      return true;
    });
  }

  /**
   * Streams changes of a kind: first those after `resourceVersion` (as a resumed watch), then each
   * new one, until the signal aborts; with `sendInitialEvents`, what exists (ADDED) and the
   * `k8s.io/initial-events-end` bookmark instead. Label selectors and
   * `metadata.name=`/`metadata.namespace=` field selectors are honoured.
   */
  async watch<T extends KubeObject>(
    kind: KindRef,
    opts: WatchOptions,
    onEvent: (e: WatchEvent<T>) => void,
  ): Promise<void> {
    const r: FakeRequest = {
      verb: 'watch',
      kind: kind.kind,
      ...(opts.namespace ? { namespace: opts.namespace } : {}),
    };
    await this.track(kind, r, () => undefined);
    const k = kindKey(kind);
    const labels = labelMatcher(opts.labelSelector);
    const fields = fieldMatcher(opts.fieldSelector);
    const send = (e: WatchEvent) => {
      const o = e.object;
      if (opts.namespace !== undefined && o.metadata.namespace !== opts.namespace) return;
      if (labels(o.metadata.labels) && fields(o)) onEvent(clone(e) as WatchEvent<T>);
    };
    if (opts.signal?.aborted) return;
    opts.onOpen?.();
    if (opts.sendInitialEvents) {
      // Watch-list: what exists as ADDED events, then the bookmark that ends the initial state.
      for (const o of this.bucket(kind).values()) send({ type: 'ADDED', object: o });
      const bookmark: WatchEvent = {
        type: 'BOOKMARK',
        object: {
          metadata: {
            resourceVersion: String(this.version),
            annotations: { 'k8s.io/initial-events-end': 'true' },
          },
        },
      };
      onEvent(bookmark as WatchEvent<T>);
    } else {
      const from = Number(opts.resourceVersion ?? this.version);
      for (const c of this.changes) if (c.kind === k && c.rv > from) send(c.event);
    }
    await new Promise<void>((resolve) => {
      const watcher = { kind: k, send };
      this.watchers.add(watcher);
      opts.signal?.addEventListener(
        'abort',
        () => {
          this.watchers.delete(watcher);
          resolve();
        },
        { once: true },
      );
    });
  }

  /** Counts the request, answers 404 for a kind not served and injected failures, records the code. */
  private async track<R>(kind: KindRef, r: FakeRequest, fn: () => R): Promise<R> {
    this.calls.push(r);
    const failure = this.failures.find((f) => f.match(r));
    try {
      if (this.served && !this.served.has(kindKey(kind)))
        throw new ApiError({
          code: 404,
          reason: 'NotFound',
          message: 'the server could not find the requested resource',
        });
      if (failure) throw failure.error;
      const out = fn();
      this.requests.record(r.verb as Verb, r.verb === 'create' ? 201 : 200);
      return out;
    } catch (err) {
      this.requests.record(r.verb as Verb, err instanceof ApiError ? err.code : 0);
      throw err;
    }
  }

  /** Logs a change (for resumed watches) and tells the open watches, after the writer's turn. */
  private emit(kind: KindRef, type: WatchEvent['type'], object: KubeObject): void {
    const event: WatchEvent = { type, object: clone(object) };
    const k = kindKey(kind);
    this.changes.push({ rv: this.version, kind: k, event });
    if (this.changes.length > 10_000) this.changes.shift();
    for (const w of this.watchers) if (w.kind === k) queueMicrotask(() => w.send(event));
  }

  private remove(kind: KindRef, obj: KubeObject): void {
    this.bucket(kind).delete(keyOf(kind.namespaced ? obj : { name: obj.metadata.name ?? '' }));
    this.version += 1;
    this.emit(kind, 'DELETED', {
      ...obj,
      metadata: { ...obj.metadata, resourceVersion: String(this.version) },
    });
  }

  private where(kind: KindRef, ref: ObjectRef): { namespace?: string; name: string } {
    return kind.namespaced && ref.namespace
      ? { namespace: ref.namespace, name: ref.name }
      : { name: ref.name };
  }

  private key(kind: KindRef, ref: ObjectRef): string {
    return keyOf(kind.namespaced ? ref : { name: ref.name });
  }

  private bucket(kind: KindRef): Map<string, KubeObject> {
    const k = kindKey(kind);
    let b = this.store.get(k);
    if (!b) {
      b = new Map();
      this.store.set(k, b);
    }
    return b;
  }

  private live(kind: KindRef, ref: ObjectRef): KubeObject {
    const live = this.bucket(kind).get(this.key(kind, ref));
    if (!live) throw notFound(kind, ref);
    return live;
  }

  private bumped(obj: KubeObject): KubeObject {
    this.version += 1;
    return { ...obj, metadata: { ...obj.metadata, resourceVersion: String(this.version) } };
  }

  /** A new object as the server stores it: type meta, uid, generation 1, creation time. */
  private stamp(kind: KindRef, obj: KubeObject): KubeObject {
    this.uids += 1;
    const metadata = {
      ...obj.metadata,
      uid: obj.metadata.uid ?? `uid-${this.uids}`,
      generation: obj.metadata.generation ?? 1,
      creationTimestamp: obj.metadata.creationTimestamp ?? new Date().toISOString(),
    };
    if (!kind.namespaced) delete metadata.namespace;
    return this.bumped({ ...obj, apiVersion: apiVersionOf(kind), kind: kind.kind, metadata });
  }

  /** Writes `next` over `live`: the main resource never changes status, `/status` changes only status. */
  private write(
    kind: KindRef,
    live: KubeObject,
    next: KubeObject,
    subresource: 'status' | undefined,
  ): KubeObject {
    let result: KubeObject;
    if (subresource === 'status') {
      result = { ...live, status: next['status'] };
      if (next['status'] === undefined) delete result['status'];
    } else {
      result = {
        ...next,
        apiVersion: apiVersionOf(kind),
        kind: kind.kind,
        metadata: {
          ...next.metadata,
          uid: live.metadata.uid,
          creationTimestamp: live.metadata.creationTimestamp,
          generation:
            (live.metadata.generation ?? 1) +
            (JSON.stringify(specOf(next)) === JSON.stringify(specOf(live)) ? 0 : 1),
          ...(live.metadata.deletionTimestamp ? { deletionTimestamp: live.metadata.deletionTimestamp } : {}),
        },
      };
      if (live['status'] !== undefined) result['status'] = live['status'];
      else delete result['status'];
    }
    if (JSON.stringify(result) === JSON.stringify(live)) return clone(live);
    // The last finalizer gone from an object being deleted: it goes.
    if (result.metadata.deletionTimestamp && !result.metadata.finalizers?.length) {
      this.remove(kind, result);
      return clone(result);
    }
    return this.put(kind, this.bumped(result));
  }

  /** Stores an object (its resourceVersion already bumped) and tells the watches. */
  private put(kind: KindRef, obj: KubeObject): KubeObject {
    const key = keyOf(kind.namespaced ? obj : { name: obj.metadata.name ?? '' });
    const existed = this.bucket(kind).has(key);
    this.bucket(kind).set(key, obj);
    this.emit(kind, existed ? 'MODIFIED' : 'ADDED', obj);
    return clone(obj);
  }
}

/** Events a test recorder kept, in order. */
export interface RecordedEvent {
  object: string;
  type: EventType;
  reason: string;
  message: string;
}

/** An EventRecorder that keeps Events in memory. */
export class FakeRecorder implements EventRecorder {
  readonly events: RecordedEvent[] = [];
  async event(obj: KubeObject, type: EventType, reason: string, message: string): Promise<void> {
    this.events.push({ object: `${obj.kind}/${keyOf(obj)}`, type, reason, message });
  }
  normal(obj: KubeObject, reason: string, message: string): Promise<void> {
    return this.event(obj, 'Normal', reason, message);
  }
  warning(obj: KubeObject, reason: string, message: string): Promise<void> {
    return this.event(obj, 'Warning', reason, message);
  }
}

/** A ReconcileContext over a fake client and its cache, as the controller would build it. */
export function fakeReconcileContext(
  client: FakeKubeClient,
  obj: KubeObject,
  opts: { cache?: CacheReader; recorder?: EventRecorder; signal?: AbortSignal; controller?: string } = {},
): ReconcileContext {
  const key = keyOf(obj);
  return {
    client,
    cache: opts.cache ?? client.cache(),
    recorder: opts.recorder ?? new FakeRecorder(),
    log: pino({ level: process.env['LOG_LEVEL'] ?? 'silent' }),
    key,
    ref: {
      name: obj.metadata.name ?? '',
      ...(obj.metadata.namespace ? { namespace: obj.metadata.namespace } : {}),
    },
    signal: opts.signal ?? new AbortController().signal,
    controller: opts.controller ?? (obj.kind ?? 'object').toLowerCase(),
  };
}

/**
 * Runs a reconciler once on the stored object `ref` of `kind`, as a controller would (object from
 * the cache, Events kept). Returns the result and the Events; a thrown error propagates.
 */
export async function reconcileOnce<T extends KubeObject>(
  client: FakeKubeClient,
  kind: KindRef,
  ref: ObjectRef,
  reconciler: Reconciler<T>,
  opts: { cache?: CacheReader; recorder?: FakeRecorder } = {},
): Promise<{ result: ReconcileResult; events: RecordedEvent[] }> {
  const cache = opts.cache ?? client.cache();
  const obj = cache.get<T>(kind, ref);
  if (!obj) throw new Error(`${kind.kind} ${keyOf(ref)} is not stored`);
  const recorder = opts.recorder ?? new FakeRecorder();
  const result = (await reconciler(obj, fakeReconcileContext(client, obj, { cache, recorder }))) ?? {};
  return { result, events: recorder.events };
}

/**
 * A real Manager (informers, queue, controllers) on a fake API server, for unit tests of a
 * registration: what wakes the controller, what it caches. No leader election, ports or metrics;
 * resolves once `setup` registered the controllers and the informers synced.
 */
export async function startFakeManager(
  client: FakeKubeClient,
  setup: (manager: Manager) => unknown,
  opts: Partial<Omit<ManagerOptions, 'client' | 'kubeConfig'>> = {},
): Promise<Manager> {
  const manager = new Manager({
    name: 'fake-operator',
    logger: pino({ level: process.env['LOG_LEVEL'] ?? 'silent' }),
    registry: new Registry(),
    gracefulShutdownTimeoutMs: 1_000,
    ...opts,
    kubeConfig: new KubeConfig(),
    client,
  });
  await setup(manager);
  await manager.start();
  await manager.cache.waitForSync();
  return manager;
}
