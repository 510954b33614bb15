import { deepEqual, mergePatchDiff } from '../client/json.js';
import { apiVersionOf, type KindRef } from '../client/kinds.js';
import type { KubeClient, KubeObject } from '../client/types.js';

export interface PatchStatusOptions {
  /**
   * `merge` (default): a JSON merge patch of exactly the differences (removed keys → null).
   * `apply`: server-side apply of the whole status on /status with the client's field manager.
   */
  mode?: 'merge' | 'apply';
}

/**
 * Writes `status` to the object's status subresource only when it differs from `obj.status`
 * (deep equality, key order ignored). Returns whether a request was sent and the resulting object.
 * Conflicts are not possible with the merge patch (no resourceVersion is sent: status belongs to
 * the controller), and NotFound surfaces as the client's ApiError.
 */
export async function patchStatusIfChanged<T extends KubeObject, S>(
  client: KubeClient,
  kind: KindRef,
  obj: T,
  status: S,
  opts: PatchStatusOptions = {},
): Promise<{ patched: boolean; object: T }> {
  const before = (obj as { status?: unknown }).status ?? {};
  if (deepEqual(before, status)) return { patched: false, object: obj };
  const ref = { name: obj.metadata.name ?? '', namespace: obj.metadata.namespace };
  if (opts.mode === 'apply') {
    const body = {
      apiVersion: apiVersionOf(kind),
      kind: kind.kind,
      metadata: { name: ref.name, ...(ref.namespace ? { namespace: ref.namespace } : {}) },
      status,
    } as KubeObject;
    const object = await client.apply<T>(kind, body as T, { force: true, subresource: 'status' });
    return { patched: true, object };
  }
  const diff = mergePatchDiff(before, status) ?? {};
  const object = await client.patch<T>(kind, ref, { status: diff }, 'merge', { subresource: 'status' });
  return { patched: true, object };
}
