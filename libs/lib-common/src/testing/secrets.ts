import { Kinds } from '../client/kinds.js';
import type { KubeClient, KubeObject } from '../client/types.js';

/**
 * Creates Secret `name` in `namespace` from plain text (`stringData`: the API server encodes it),
 * labelled when `labels` are given.
 */
export function createSecret(
  client: KubeClient,
  namespace: string,
  name: string,
  stringData: Record<string, string>,
  labels?: Record<string, string>,
): Promise<KubeObject> {
  return client.create(Kinds.Secret, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace, ...(labels ? { labels } : {}) },
    stringData,
  } as KubeObject);
}
