/** Shared set-up of the resources integration tests: a client on the real control plane, a namespace per file, waiting. */
import { createKubeClient, Kinds, type KubeObject, type RestKubeClient } from '../src/client/index.js';
import { loadTestKubeConfig } from '../src/testing/kubeconfig.js';
import { createTestNamespace, type TestHooks, useTestNamespace } from '../src/testing/namespace.js';

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

/** What a resources test file works with: the client, its namespace and an owner in it. */
export interface ResourcesFile {
  readonly client: RestKubeClient;
  readonly ns: string;
  readonly owner: KubeObject;
}

/** One namespace for the file (deleted after it) with an owner in it, and a client as the operator's field manager. */
export function useResourcesNamespace(hooks: TestHooks, prefix: string): ResourcesFile {
  const t = useTestNamespace(hooks, { prefix, fieldManager: FIELD_MANAGER, scope: 'file' });
  let owner: KubeObject | undefined;
  hooks.beforeAll(async () => {
    owner = await createOwner(t.admin, t.ns.name);
  });
  return {
    get client() {
      return t.admin;
    },
    get ns() {
      return t.ns.name;
    },
    get owner() {
      if (!owner) throw new Error('useResourcesNamespace: the owner is only there inside a test');
      return owner;
    },
  };
}
