import type { KindRef, KubeClient, KubeObject, ObjectRef } from '@stackops/lib-common/resources';
import type { Reader } from './context.js';

/** A Reader that asks the API server (used until, or where, no informer cache serves the kind). */
export function clientReader(client: KubeClient): Reader {
  return {
    get: <T extends KubeObject>(kind: KindRef, ref: ObjectRef) => client.get<T>(kind, ref),
    list: async <T extends KubeObject>(kind: KindRef, namespace: string, labelSelector?: string) =>
      (await client.list<T>(kind, { namespace, ...(labelSelector ? { labelSelector } : {}) })).items,
  };
}
