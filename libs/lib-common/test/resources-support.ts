/** Shared set-up of the resources integration tests: a client on the real control plane, a namespace per file, waiting. */
import { createKubeClient, Kinds, type KubeObject, type RestKubeClient } from '../src/client/index.js';
import { loadTestKubeConfig } from '../src/testing/kubeconfig.js';
import { createTestNamespace } from '../src/testing/namespace.js';

export const FIELD_MANAGER = 'stackops-test-operator';

export function testClient(fieldManager = FIELD_MANAGER): RestKubeClient {
  return createKubeClient(loadTestKubeConfig(), { fieldManager });
}

export async function createNamespace(client: RestKubeClient, prefix: string): Promise<string> {
  return (await createTestNamespace(client, prefix)).name;
}

export async function deleteNamespace(client: RestKubeClient, name: string): Promise<void> {
  await client.delete(Kinds.Namespace, { name });
}

/** A real object to own things: any kind with a uid will do. */
export async function createOwner(
  client: RestKubeClient,
  namespace: string,
  name = 'owner',
): Promise<KubeObject> {
  return client.create(Kinds.ConfigMap, {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace },
  });
}
