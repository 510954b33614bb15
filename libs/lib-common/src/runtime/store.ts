import type { KubeObject, ObjectRef } from '../client/types.js';
import { labelMatcher } from './selector.js';

/** `namespace/name` for namespaced objects, `name` for cluster-scoped ones. */
export function keyOf(ref: ObjectRef | KubeObject): string {
  const { namespace, name } = 'metadata' in ref ? ref.metadata : ref;
  return namespace ? `${namespace}/${name ?? ''}` : (name ?? '');
}

export function refOfKey(key: string): ObjectRef {
  const slash = key.indexOf('/');
  return slash < 0 ? { name: key } : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}

export interface CacheListOptions {
  namespace?: string;
  /** A selector string (`app=x,tier in (a,b)`) or equality labels. */
  labelSelector?: string | Record<string, string>;
}

/** The objects of one kind, by key, with a namespace index. */
export class Store<T extends KubeObject = KubeObject> {
  private readonly items = new Map<string, T>();
  private readonly byNamespace = new Map<string, Set<string>>();

  get size(): number {
    return this.items.size;
  }

  get(ref: ObjectRef | string): T | undefined {
    return this.items.get(typeof ref === 'string' ? ref : keyOf(ref));
  }

  list(opts: CacheListOptions = {}): T[] {
    const match = labelMatcher(opts.labelSelector);
    const keys =
      opts.namespace === undefined ? this.items.keys() : (this.byNamespace.get(opts.namespace) ?? []);
    const out: T[] = [];
    for (const k of keys) {
      const obj = this.items.get(k);
      if (obj && match(obj.metadata.labels)) out.push(obj);
    }
    return out;
  }

  /** Keys in one namespace, or all keys. */
  keys(namespace?: string): string[] {
    return namespace === undefined ? [...this.items.keys()] : [...(this.byNamespace.get(namespace) ?? [])];
  }

  /** Stores the object and returns the one it replaced. */
  set(obj: T): T | undefined {
    const key = keyOf(obj);
    const old = this.items.get(key);
    this.items.set(key, obj);
    const ns = obj.metadata.namespace ?? '';
    let set = this.byNamespace.get(ns);
    if (!set) {
      set = new Set();
      this.byNamespace.set(ns, set);
    }
    set.add(key);
    return old;
  }

  delete(key: string): T | undefined {
    const old = this.items.get(key);
    if (!old) return undefined;
    this.items.delete(key);
    const ns = old.metadata.namespace ?? '';
    const set = this.byNamespace.get(ns);
    set?.delete(key);
    if (set?.size === 0) this.byNamespace.delete(ns);
    return old;
  }
}
