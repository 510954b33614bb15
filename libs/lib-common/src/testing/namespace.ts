import { randomBytes } from 'node:crypto';
import { createKubeClient, type RestKubeClient } from '../client/client.js';
import { Kinds } from '../client/kinds.js';
import type { KubeClient, KubeObject } from '../client/types.js';
import { installCrds } from './crds.js';
import { loadTestKubeConfig } from './kubeconfig.js';
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

/** The test runner's hooks (vitest's), passed in so this module does not import the runner. */
export interface TestHooks {
  beforeAll(fn: () => unknown): void;
  afterAll(fn: () => unknown): void;
  beforeEach(fn: () => unknown): void;
  afterEach(fn: () => unknown): void;
}

export interface TestNamespaceOptions {
  /** The namespace names' prefix. */
  prefix: string;
  /** CRDs installed once before the file's tests: a folder or file of YAML, the objects, or a function. */
  crds?: string | readonly KubeObject[] | ((admin: RestKubeClient) => Promise<void>);
  /** `test` (the default): a fresh namespace per test; `file`: one namespace for all the file's tests. */
  scope?: 'test' | 'file';
  /** Default `test-admin`. */
  fieldManager?: string;
}

/** What `useTestNamespace` keeps up to date for the tests. */
export interface TestCluster {
  /** An admin client on the test cluster, made before the file's tests and closed after them. */
  readonly admin: RestKubeClient;
  /** The current test's namespace: a fresh one per test (or per file), deleted after it. */
  readonly ns: TestNamespace;
}

/**
 * An admin client for the file and a fresh namespace for each test (or one for the file), as hooks
 * registered where it is called. After-hooks run in reverse order of registration, so a file's own
 * `afterEach` (stopping its managers) registered after this call runs before the namespace is deleted.
 */
export function useTestNamespace(hooks: TestHooks, opts: TestNamespaceOptions): TestCluster {
  let admin: RestKubeClient | undefined;
  let ns: TestNamespace | undefined;
  const need = <T>(v: T | undefined, what: string): T => {
    if (v === undefined) throw new Error(`useTestNamespace: ${what} is only there inside a test`);
    return v;
  };
  hooks.beforeAll(async () => {
    admin = createKubeClient(loadTestKubeConfig(), { fieldManager: opts.fieldManager ?? 'test-admin' });
    if (typeof opts.crds === 'function') await opts.crds(admin);
    else if (opts.crds) await installCrds(admin, opts.crds);
  });
  hooks.afterAll(() => admin?.close());
  const [before, after] =
    opts.scope === 'file' ? [hooks.beforeAll, hooks.afterAll] : [hooks.beforeEach, hooks.afterEach];
  before(async () => {
    ns = await createTestNamespace(need(admin, 'the admin client'), opts.prefix);
  });
  after(() => ns?.delete());
  return {
    get admin() {
      return need(admin, 'the admin client');
    },
    get ns() {
      return need(ns, 'the namespace');
    },
  };
}
