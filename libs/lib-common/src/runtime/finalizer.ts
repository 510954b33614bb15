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
