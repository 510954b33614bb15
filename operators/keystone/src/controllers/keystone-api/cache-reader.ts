import type { KindRef, KubeClient, KubeObject, ObjectRef } from '@stackops/lib-common/resources';
import { kindKey } from '@stackops/lib-common/resources';
import type { CacheReader } from '@stackops/lib-common/runtime';
import type { Reader } from './context.js';

/**
 * Reads kinds the manager has informers for from its cache, and anything else (pods, network
 * attachment definitions, whose CRD may not even exist) from the API server.
 */
export function cacheReader(cache: CacheReader, client: KubeClient, cachedKinds: readonly KindRef[]): Reader {
  const cached = new Set(cachedKinds.map(kindKey));
  return {
    get: async <T extends KubeObject>(kind: KindRef, ref: ObjectRef) =>
      cached.has(kindKey(kind)) ? cache.get<T>(kind, ref) : client.get<T>(kind, ref),
    list: async <T extends KubeObject>(kind: KindRef, namespace: string, labelSelector?: string) =>
      cached.has(kindKey(kind))
        ? cache.list<T>(kind, { namespace, ...(labelSelector ? { labelSelector } : {}) })
        : (await client.list<T>(kind, { namespace, ...(labelSelector ? { labelSelector } : {}) })).items,
  };
}
