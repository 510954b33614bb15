import type { KindRef } from '../client/kinds.js';
import type { KubeClient, KubeObject } from '../client/types.js';

export type JsonPatchOp =
  | { op: 'test'; path: string; value: unknown }
  | { op: 'add'; path: string; value: unknown }
  | { op: 'remove'; path: string };

export const hasFinalizer = (obj: KubeObject, name: string): boolean =>
  obj.metadata.finalizers?.includes(name) ?? false;

/**
 * The JSON Patch that adds a finalizer, or undefined when it is already there. The `test` makes
 * the patch fail (and the reconcile retry) if the list changed since the object was read, because
 * the API server does not deduplicate finalizers and a blind append could add it twice.
 */
export function addFinalizerPatch(obj: KubeObject, name: string): JsonPatchOp[] | undefined {
  const current = obj.metadata.finalizers;
  if (current?.includes(name)) return undefined;
  if (!current || current.length === 0) {
    // `test … null` holds when the field is absent (Kubernetes' JSON Patch treats a missing path as null).
    return [
      { op: 'test', path: '/metadata/finalizers', value: current ?? null },
      { op: 'add', path: '/metadata/finalizers', value: [name] },
    ];
  }
  return [
    { op: 'test', path: '/metadata/finalizers', value: current },
    { op: 'add', path: '/metadata/finalizers/-', value: name },
  ];
}

/** The JSON Patch that removes a finalizer by index, guarded by a `test` of that index. */
export function removeFinalizerPatch(obj: KubeObject, name: string): JsonPatchOp[] | undefined {
  const i = obj.metadata.finalizers?.indexOf(name) ?? -1;
  if (i < 0) return undefined;
  return [
    { op: 'test', path: `/metadata/finalizers/${i}`, value: name },
    { op: 'remove', path: `/metadata/finalizers/${i}` },
  ];
}

const refOf = (obj: KubeObject) => ({
  name: obj.metadata.name ?? '',
  ...(obj.metadata.namespace ? { namespace: obj.metadata.namespace } : {}),
});

/** Adds the finalizer unless present (idempotent); resolves with the object as it now is. */
export async function ensureFinalizer<T extends KubeObject>(
  client: KubeClient,
  kind: KindRef,
  obj: T,
  name: string,
): Promise<T> {
  const patch = addFinalizerPatch(obj, name);
  if (!patch) return obj;
  return client.patch<T>(kind, refOf(obj), patch, 'json');
}

/** Removes the finalizer if present (idempotent); resolves with the object as it now is. */
export async function removeFinalizer<T extends KubeObject>(
  client: KubeClient,
  kind: KindRef,
  obj: T,
  name: string,
): Promise<T> {
  const patch = removeFinalizerPatch(obj, name);
  if (!patch) return obj;
  return client.patch<T>(kind, refOf(obj), patch, 'json');
}

export interface FinalizerHandlers<T extends KubeObject, R> {
  /** The normal reconcile of a live object (runs only once the finalizer is in place). */
  apply: (obj: T) => Promise<R>;
  /** Cleanup before deletion; must be idempotent and must throw to keep the object. */
  cleanup: (obj: T) => Promise<void>;
}

/**
 * Reconciles with a finalizer, after kube-runtime's `finalizer()`: a live object first gets the
 * finalizer, then `apply` runs on the patched object (in the same reconcile, so a
 * generation-filtered controller does not wait for another event); an object being deleted gets
 * `cleanup`, and only when cleanup succeeded is the finalizer removed. Cleanup may run for an
 * object `apply` never saw, and runs again if the removal failed, so it must be idempotent.
 */
export async function withFinalizer<T extends KubeObject, R>(
  client: KubeClient,
  kind: KindRef,
  obj: T,
  name: string,
  handlers: FinalizerHandlers<T, R>,
): Promise<R | undefined> {
  if (obj.metadata.deletionTimestamp) {
    if (!hasFinalizer(obj, name)) return undefined;
    await handlers.cleanup(obj);
    await removeFinalizer(client, kind, obj, name);
    return undefined;
  }
  return handlers.apply(await ensureFinalizer(client, kind, obj, name));
}
