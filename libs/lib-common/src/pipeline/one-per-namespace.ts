import type { KindRef } from '../client/kinds.js';
import type { KubeObject } from '../client/types.js';
import type { CacheReader } from '../runtime/cache.js';

/** How often a refused object looks again whether the one holding its namespace is gone. */
export const ONE_PER_NAMESPACE_RECHECK_MS = 30_000;

/** Oldest first: creation time, then uid, then name (a total order every replica agrees on). */
function olderThan(a: KubeObject, b: KubeObject): boolean {
  const ta = a.metadata.creationTimestamp ?? '';
  const tb = b.metadata.creationTimestamp ?? '';
  if (ta !== tb) return ta < tb;
  const ua = a.metadata.uid ?? '';
  const ub = b.metadata.uid ?? '';
  if (ua !== ub) return ua < ub;
  return (a.metadata.name ?? '') < (b.metadata.name ?? '');
}

/**
 * The object of the same kind and namespace that holds the namespace before `obj` (the oldest;
 * one being deleted still holds it until it is gone, so its successor never takes over objects
 * with the same fixed names while they are being cleaned up), or undefined when `obj` is the one.
 * Reads the cache only.
 */
export function namespaceHolder<T extends KubeObject>(
  cache: CacheReader,
  kind: KindRef,
  obj: T,
): T | undefined {
  const namespace = obj.metadata.namespace;
  const others = cache
    .list<T>(kind, namespace ? { namespace } : {})
    .filter((o) => o.metadata.uid !== obj.metadata.uid && (o.metadata.namespace ?? '') === (namespace ?? ''));
  let holder: T | undefined;
  for (const o of others) if (olderThan(o, obj) && (!holder || olderThan(o, holder))) holder = o;
  return holder;
}

/** The condition message of an object refused because another of its kind holds the namespace. */
export function onePerNamespaceMessage(kind: string, holder: KubeObject): string {
  const ns = holder.metadata.namespace ?? '';
  return `only one ${kind} per namespace is supported: ${kind} ${holder.metadata.name ?? ''} already runs in ${ns}; this one does nothing until it is deleted`;
}
