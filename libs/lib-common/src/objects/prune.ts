import { describeError, isNotFound } from '../client/errors.js';
import { type KindRef, kindKey } from '../client/kinds.js';
import type { KubeClient, KubeObject } from '../client/types.js';

/** Reads the cached objects of a kind (the informer cache's `list`). */
export interface ObjectLister {
  list<T extends KubeObject>(kind: KindRef): T[];
}

/** `group/Kind/namespace/name`: one object across renders and API versions. */
export function objectIdentity(obj: KubeObject): string {
  const apiVersion = obj.apiVersion ?? '';
  const slash = apiVersion.indexOf('/');
  const group = slash < 0 ? '' : apiVersion.slice(0, slash);
  return `${group}/${obj.kind ?? ''}/${obj.metadata.namespace ?? ''}/${obj.metadata.name ?? ''}`;
}

/** A stale object that could not be deleted; the pass that rendered the rest failed on it. */
export class PruneError extends Error {
  constructor(
    readonly kind: KindRef,
    readonly object: KubeObject,
    cause: unknown,
  ) {
    const ns = object.metadata.namespace ? `${object.metadata.namespace}/` : '';
    super(`could not delete ${kind.kind} ${ns}${object.metadata.name}: ${describeError(cause)}`, {
      cause,
    });
    this.name = 'PruneError';
  }
}

export interface PruneOptions {
  /** The kinds to look through (their informers must be in the cache). */
  kinds: readonly KindRef[];
  /** The controller owner whose objects are candidates (matched by uid). */
  owner: KubeObject;
  /** What this pass rendered: everything else the owner controls is stale. */
  keep: readonly KubeObject[];
}

/**
 * Deletes what `owner` controls (according to the cache) but no longer renders: a component
 * removed from the spec, a renamed object. Objects already being deleted are left alone, and one
 * already gone counts as deleted. Returns what it deleted; the first failure throws a `PruneError`.
 * Objects applied without an owner are not found here.
 */
export async function pruneOwned(
  client: KubeClient,
  cache: ObjectLister,
  opts: PruneOptions,
): Promise<{ kind: KindRef; object: KubeObject }[]> {
  const uid = opts.owner.metadata.uid;
  if (!uid) throw new TypeError('pruneOwned: the owner needs metadata.uid');
  const keep = new Set(opts.keep.map(objectIdentity));
  const seen = new Set<string>();
  const deleted: { kind: KindRef; object: KubeObject }[] = [];
  for (const kind of opts.kinds) {
    if (seen.has(kindKey(kind))) continue;
    seen.add(kindKey(kind));
    const stale = cache
      .list(kind)
      .filter(
        (o) =>
          !o.metadata.deletionTimestamp &&
          o.metadata.ownerReferences?.some((r) => r.controller === true && r.uid === uid) &&
          !keep.has(`${kind.group}/${kind.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`),
      );
    for (const object of stale) {
      try {
        await client.delete(kind, { name: object.metadata.name ?? '', namespace: object.metadata.namespace });
      } catch (err) {
        if (!isNotFound(err)) throw new PruneError(kind, object, err);
      }
      deleted.push({ kind, object });
    }
  }
  return deleted;
}
