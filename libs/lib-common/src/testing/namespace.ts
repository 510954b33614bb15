import { randomBytes } from 'node:crypto';
import { Kinds } from '../client/kinds.js';
import type { KubeClient } from '../client/types.js';
import { waitFor } from './wait.js';

export interface TestNamespace {
  readonly name: string;
  /** Deletes the namespace (and everything in it); does not wait for it to disappear. */
  delete(): Promise<void>;
}

/**
 * A fresh namespace for one test (`<prefix>-<random>`), returned once its default ServiceAccount
 * exists (pods need it). Labelled `stackops.dev/test=true` so leftovers are easy to find.
 */
export async function createTestNamespace(client: KubeClient, prefix = 'test'): Promise<TestNamespace> {
  const base = prefix
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 50);
  const name = `${base || 'test'}-${randomBytes(3).toString('hex')}`;
  await client.create(Kinds.Namespace, {
    metadata: { name, labels: { 'stackops.dev/test': 'true' } },
  });
  await waitFor(
    client,
    Kinds.ServiceAccount,
    { namespace: name, name: 'default' },
    (sa) => sa !== undefined,
    {
      description: 'the default ServiceAccount',
    },
  );
  return {
    name,
    async delete() {
      await client.delete(Kinds.Namespace, { name }, { propagationPolicy: 'Background' });
    },
  };
}
