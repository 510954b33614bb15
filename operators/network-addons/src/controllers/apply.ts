import {
  APPLIED_HASH_ANNOTATION,
  apiVersionOf,
  applyOwned,
  isSubset,
  type KindRef,
  type KubeClient,
  type KubeObject,
  stableHash,
} from '@stackops/lib-common/resources';
import { REJECT_OWNER_ANNOTATION } from '../api/constants.js';

/**
 * CRDs are shared with whatever else uses them and outlive the operator's components; objects
 * annotated `rejectOwner` belong to the component once created. Neither gets an owner reference,
 * so deleting the NetworkAddonsConfig leaves them in place.
 */
export const takesOwnerReference = (obj: KubeObject): boolean =>
  obj.kind !== 'CustomResourceDefinition' && !(REJECT_OWNER_ANNOTATION in (obj.metadata.annotations ?? {}));

/** Server-side apply without an owner reference, skipped (like applyOwned) when the live object is up to date. */
async function applyUnowned(client: KubeClient, kind: KindRef, obj: KubeObject, live: KubeObject | null) {
  const typed = { ...obj, apiVersion: apiVersionOf(kind), kind: kind.kind };
  const hash = stableHash(typed);
  const desired = {
    ...typed,
    metadata: {
      ...typed.metadata,
      annotations: { ...typed.metadata.annotations, [APPLIED_HASH_ANNOTATION]: hash },
    },
  };
  const { apiVersion: _v, kind: _k, ...fields } = desired;
  if (
    live &&
    !live.metadata.deletionTimestamp &&
    live.metadata.annotations?.[APPLIED_HASH_ANNOTATION] === hash &&
    isSubset(fields, live)
  ) {
    return { object: live, applied: false };
  }
  return { object: await client.apply(kind, desired, { force: true }), applied: true };
}

/** Applies one rendered object with the operator's field manager; owned by the CR unless exempt. */
export function applyRendered(
  client: KubeClient,
  owner: KubeObject,
  kind: KindRef,
  obj: KubeObject,
  live: KubeObject | null,
): Promise<{ object: KubeObject; applied: boolean }> {
  return takesOwnerReference(obj)
    ? applyOwned(client, owner, kind, obj, { current: live })
    : applyUnowned(client, kind, obj, live);
}
