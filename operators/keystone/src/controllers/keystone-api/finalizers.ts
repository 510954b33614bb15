import type { KindRef, KubeClient, KubeObject } from '@stackops/lib-common/resources';

/**
 * Finalizer add/remove as a merge patch carrying the object's resourceVersion: a concurrent change
 * to the object fails with a conflict (the reconcile is retried) instead of being overwritten.
 */
async function writeFinalizers(client: KubeClient, kind: KindRef, obj: KubeObject, finalizers: string[]) {
  const ref = { name: obj.metadata.name ?? '', namespace: obj.metadata.namespace };
  const patch = { metadata: { finalizers, resourceVersion: obj.metadata.resourceVersion } };
  return client.patch(kind, ref, patch, 'merge');
}

/** Adds `name`; false when it was there already (nothing written). */
export async function addFinalizer(
  client: KubeClient,
  kind: KindRef,
  obj: KubeObject,
  name: string,
): Promise<boolean> {
  const list = obj.metadata.finalizers ?? [];
  if (list.includes(name)) return false;
  await writeFinalizers(client, kind, obj, [...list, name]);
  return true;
}

/** Removes `name`; false when it was not there (nothing written). */
export async function removeFinalizer(
  client: KubeClient,
  kind: KindRef,
  obj: KubeObject,
  name: string,
): Promise<boolean> {
  const list = obj.metadata.finalizers ?? [];
  if (!list.includes(name)) return false;
  await writeFinalizers(
    client,
    kind,
    obj,
    list.filter((f) => f !== name),
  );
  return true;
}
