import { isSubset } from '../client/json.js';
import { apiVersionOf, type KindRef } from '../client/kinds.js';
import type { KubeClient, KubeObject } from '../client/types.js';
import { stableHash } from './hash.js';
import { checkImageReferences } from './image-reference.js';
import { withControllerReference } from './owner.js';

/**
 * Hash of what the operator last applied, kept on the object: when it matches the desired object
 * and the live object still holds every desired field, the apply is skipped. The hash catches
 * fields the operator stopped setting, which a field-by-field comparison cannot see.
 */
export const APPLIED_HASH_ANNOTATION = 'stackops.io/applied-hash';

export interface ApplyOwnedOptions<T extends KubeObject = KubeObject> {
  /**
   * The live object as the caller already knows it, normally from the informer cache:
   * `null` = known absent; `undefined` = unknown, so it is read with one GET.
   */
  current?: T | null;
  /** Take over fields another manager set (default true: the operator is authoritative for what it owns). */
  force?: boolean;
}

export interface ApplyResult<T extends KubeObject> {
  /** The live object after the call (the applied one, or `current` when nothing had to change). */
  object: T;
  /** Whether a write request was sent. */
  applied: boolean;
}

/** The desired object as it will be sent: type meta, controller reference and the applied-hash annotation. */
export function desiredOwnedObject<T extends KubeObject>(owner: KubeObject, kind: KindRef, obj: T): T {
  const owned = withControllerReference(owner, kind, {
    ...obj,
    apiVersion: apiVersionOf(kind),
    kind: kind.kind,
  });
  const annotations = { ...owned.metadata.annotations };
  delete annotations[APPLIED_HASH_ANNOTATION];
  const withoutHash = { ...owned, metadata: { ...owned.metadata, annotations } };
  return {
    ...owned,
    metadata: {
      ...owned.metadata,
      annotations: { ...annotations, [APPLIED_HASH_ANNOTATION]: stableHash(withoutHash) },
    },
  };
}

/**
 * The desired object without an owner, as it will be sent: type meta and the applied-hash
 * annotation (the hash of the object as rendered).
 */
export function desiredUnownedObject<T extends KubeObject>(kind: KindRef, obj: T): T {
  const typed = { ...obj, apiVersion: apiVersionOf(kind), kind: kind.kind };
  return {
    ...typed,
    metadata: {
      ...typed.metadata,
      annotations: { ...typed.metadata.annotations, [APPLIED_HASH_ANNOTATION]: stableHash(typed) },
    },
  };
}

/** Whether the live object already is what applying `desired` would make it. */
export function isUpToDate(desired: KubeObject, live: KubeObject | null | undefined): boolean {
  if (!live) return false;
  if (live.metadata.deletionTimestamp) return false;
  const hash = desired.metadata.annotations?.[APPLIED_HASH_ANNOTATION];
  if (!hash || live.metadata.annotations?.[APPLIED_HASH_ANNOTATION] !== hash) return false;
  const { apiVersion: _v, kind: _k, status: _s, ...fields } = desired;
  return isSubset(fields, live);
}

async function applyDesired<T extends KubeObject>(
  client: KubeClient,
  kind: KindRef,
  desired: T,
  opts: ApplyOwnedOptions<T>,
): Promise<ApplyResult<T>> {
  const current =
    opts.current !== undefined
      ? opts.current
      : ((await client.get<T>(kind, {
          name: desired.metadata.name ?? '',
          namespace: desired.metadata.namespace,
        })) ?? null);
  if (current && isUpToDate(desired, current)) return { object: current, applied: false };
  checkImageReferences(kind.kind, desired);
  const object = await client.apply<T>(kind, desired, { force: opts.force ?? true });
  return { object, applied: true };
}

/**
 * Server-side applies `obj` with the client's field manager, owned by `owner` (controller
 * reference, blockOwnerDeletion). No request is sent when the live object is already up to date,
 * so a reconcile whose inputs did not change issues zero writes. Fields the operator stops setting
 * are removed by the apply itself (SSA semantics). A workload whose image no runtime can pull is
 * refused before it is sent (see `checkImageReferences`).
 */
export function applyOwned<T extends KubeObject>(
  client: KubeClient,
  owner: KubeObject,
  kind: KindRef,
  obj: T,
  opts: ApplyOwnedOptions<T> = {},
): Promise<ApplyResult<T>> {
  return applyDesired(client, kind, desiredOwnedObject(owner, kind, obj), opts);
}

/**
 * Server-side applies `obj` without an owner reference (a CRD shared with others, an object that
 * must outlive its creator), skipped like `applyOwned` when the live object is up to date. Prune
 * cannot find such objects through their owner: track them yourself if they may go away.
 */
export function applyUnowned<T extends KubeObject>(
  client: KubeClient,
  kind: KindRef,
  obj: T,
  opts: ApplyOwnedOptions<T> = {},
): Promise<ApplyResult<T>> {
  return applyDesired(client, kind, desiredUnownedObject(kind, obj), opts);
}
