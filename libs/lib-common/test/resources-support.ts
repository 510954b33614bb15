/** Shared set-up of the resources integration tests: a client on the real control plane, a namespace per file, waiting. */
import { randomBytes } from 'node:crypto';
import { KubeConfig } from '@kubernetes/client-node';
import { createKubeClient, Kinds, type KubeObject, type RestKubeClient } from '../src/client/index.js';

export const FIELD_MANAGER = 'stackops-test-operator';

export function kubeConfig(): KubeConfig {
  const path = process.env['KUBECONFIG'];
  if (!path) {
    throw new Error(
      'KUBECONFIG is not set: run through the @stackops/kube-env vitest global setup, or `eval "$(node tools/kube-env/dist/cli.js env)"`',
    );
  }
  const kc = new KubeConfig();
  kc.loadFromFile(path);
  return kc;
}

export function testClient(fieldManager = FIELD_MANAGER): RestKubeClient {
  return createKubeClient(kubeConfig(), { fieldManager });
}

export async function createNamespace(client: RestKubeClient, prefix: string): Promise<string> {
  const name = `${prefix}-${randomBytes(3).toString('hex')}`;
  await client.create(Kinds.Namespace, { metadata: { name } });
  return name;
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
