import { isNotFound, isPatchTestFailed } from '../client/errors.js';
import type { KindRef } from '../client/kinds.js';
import type { KubeClient, KubeObject, ObjectRef } from '../client/types.js';

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

/** How often a hold or release re-reads the object after its `test` failed (the list moved meanwhile). */
const FINALIZER_ATTEMPTS = 3;

async function onForeignObject<T extends KubeObject>(
  client: KubeClient,
  kind: KindRef,
  target: ObjectRef | T,
  name: string,
  patchOf: (obj: KubeObject, name: string) => JsonPatchOp[] | undefined,
  recheckNoop: boolean,
): Promise<T | undefined> {
  const current = 'metadata' in target ? target : undefined;
  const ref = current ? refOf(current) : (target as ObjectRef);
  let obj = current ?? (await client.get<T>(kind, ref));
  let fresh = current === undefined;
  for (let attempt = 1; obj; attempt++) {
    const patch = patchOf(obj, name);
    if (!patch && recheckNoop && !fresh) {
      // A copy without our finalizer may predate our hold: only the server can say.
      obj = await client.get<T>(kind, ref);
      fresh = true;
      continue;
    }
    if (!patch) return obj;
    try {
      return await client.patch<T>(kind, ref, patch, 'json');
    } catch (err) {
      if (isNotFound(err)) return undefined;
      if (!isPatchTestFailed(err) || attempt >= FINALIZER_ATTEMPTS) throw err;
      obj = await client.get<T>(kind, ref);
      fresh = true;
    }
  }
  return undefined;
}

/**
 * Holds finalizer `name` on an object another controller owns and writes (a Memcached, Topology,
 * MariaDB CR, a parent): a JSON Patch whose `test` covers the finalizer list only, so the owner
 * writing its status meanwhile never makes it conflict (a merge patch pinned to the
 * resourceVersion would, on every such write). A list that moved is read again (3 attempts).
 * `target`: the object as already read (the cache's copy), or its reference (then it is read).
 * Resolves with the object as it now is, undefined when it does not exist.
 */
export const holdFinalizer = <T extends KubeObject>(
  client: KubeClient,
  kind: KindRef,
  target: ObjectRef | T,
  name: string,
): Promise<T | undefined> => onForeignObject(client, kind, target, name, addFinalizerPatch, false);

/**
 * Releases finalizer `name` from an object another controller owns, as `holdFinalizer` holds it
 * (gone: nothing to do). A copy without the finalizer is checked against the server.
 */
export const releaseFinalizer = <T extends KubeObject>(
  client: KubeClient,
  kind: KindRef,
  target: ObjectRef | T,
  name: string,
): Promise<T | undefined> => onForeignObject(client, kind, target, name, removeFinalizerPatch, true);
