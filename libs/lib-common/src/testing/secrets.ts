import { Kinds } from '../client/kinds.js';
import type { KubeClient, KubeObject, ObjectRef } from '../client/types.js';
import type { FakeKubeClient } from './fake.js';

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

/**
 * The text of `key` in a Secret the fake holds: `data` decoded, else `stringData` (the fake keeps
 * what was written and encodes nothing); undefined without the Secret or the key.
 */
export function fakeSecretText(fake: FakeKubeClient, ref: ObjectRef, key: string): string | undefined {
  const s = fake.peek<KubeObject & { data?: Record<string, string>; stringData?: Record<string, string> }>(
    Kinds.Secret,
    ref,
  );
  const raw = s?.data?.[key];
  return raw !== undefined ? Buffer.from(raw, 'base64').toString() : s?.stringData?.[key];
}

/**
 * Merges `text` into Secret `name`'s `data`, each value base64-encoded: what the API server holds
 * after a `stringData` write, so that a FakeKubeClient (which encodes nothing) sees it the same.
 */
export function setSecretData(
  client: KubeClient,
  namespace: string,
  name: string,
  text: Record<string, string>,
): Promise<KubeObject> {
  const data = Object.fromEntries(
    Object.entries(text).map(([k, v]) => [k, Buffer.from(v).toString('base64')]),
  );
  return client.patch(Kinds.Secret, { namespace, name }, { data }, 'merge');
}
