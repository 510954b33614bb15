import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  createKubeClient,
  type Impersonation,
  type KindRef,
  Kinds,
  type KubeClient,
  type KubeObject,
} from '@stackops/lib-common/client';
import { createLogger } from '@stackops/lib-common/logging';
import type {
  CacheReader,
  ControllerOptions,
  Manager,
  ReconcileResult,
  Reconciler,
} from '@stackops/lib-common/runtime';
import {
  createTestNamespace,
  FakeRecorder,
  installCrds as installCrdsFrom,
  loadTestKubeConfig,
  type RecordedEvent,
  startTestManager,
} from '@stackops/lib-common/testing';
import { parseAllDocuments } from 'yaml';
import { defaultsFromEnv } from '../../src/config/defaults.js';
import { registerKeystoneApiController } from '../../src/controllers/keystone-api/keystone-api-controller.js';
import { registerKeystoneControllers } from '../../src/controllers/register.js';

/**
 * What the integration tests share, on top of lib-common's testing helpers: an admin client on
 * the run's control plane (kube-env's vitest setup sets KUBECONFIG), the CRDs keystone needs (its
 * own and multus' NAD), and the operator's controllers running in-process.
 */

export const CHART_DIR = fileURLToPath(new URL('../../../../charts/keystone-operator/', import.meta.url));
/** This package's version: the chart's appVersion and the operator image's tag. */
export const PACKAGE_VERSION: string = JSON.parse(
  readFileSync(fileURLToPath(new URL('../../package.json', import.meta.url)), 'utf8'),
).version;
const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));

export const kubeConfig = loadTestKubeConfig;

export function adminClient(): KubeClient {
  return createKubeClient(loadTestKubeConfig(), { fieldManager: 'keystone-tests' });
}

/** Parses a YAML file of one or more documents. */
export function readYaml<T = KubeObject>(path: string): T[] {
  return parseAllDocuments(readFileSync(path, 'utf8'))
    .map((d) => d.toJS() as T)
    .filter((d) => d !== null);
}

export const fixture = (name: string): string => join(FIXTURES, name);

/** The chart's CRDs and the NetworkAttachmentDefinition CRD multus would bring, Established. */
export async function installCrds(client: KubeClient): Promise<void> {
  await installCrdsFrom(client, join(CHART_DIR, 'crds'));
  await installCrdsFrom(client, fixture('crds/network-attachment-definition.yaml'));
}

/** The operator's defaults with no environment: the upstream images. */
export const TEST_DEFAULTS = defaultsFromEnv({});

/** A fresh namespace (deleted by the suite, or by the test itself). */
export const newNamespace = async (client: KubeClient, prefix = 'ks'): Promise<string> =>
  (await createTestNamespace(client, prefix)).name;

export interface Operator {
  manager: Manager;
  /**
   * What a controller's reconciles read (`ctx.cache`): the shared cache plus the objects it watches
   * by name (the Secrets a spec names are in no shared cache). Set once the controller reconciled.
   */
  readerOf(controller: string): CacheReader;
  stop(): Promise<void>;
}

/**
 * Makes `manager` remember each controller's `ctx.cache` as its reconciles run, without changing
 * what is registered or how (the register functions are main.ts's own).
 */
export function rememberingReaders(manager: Manager): Map<string, CacheReader> {
  const readers = new Map<string, CacheReader>();
  const controller = manager.controller.bind(manager);
  manager.controller = <T extends KubeObject>(opts?: ControllerOptions) => {
    const builder = controller<T>(opts);
    const reconcile = builder.reconcile.bind(builder);
    builder.reconcile = (fn: Reconciler<T>) =>
      reconcile((obj, ctx) => {
        readers.set(ctx.controller, ctx.cache);
        return fn(obj, ctx);
      });
    return builder;
  };
  return readers;
}

/** Runs the operator's controllers in-process, watching `namespaces`, optionally as another identity. */
export async function startOperator(
  opts: {
    namespaces?: string[];
    impersonate?: Impersonation;
    withRegistration?: boolean;
    /** Runs on the manager before the controllers register (e.g. to observe its client). */
    beforeRegister?: (manager: Manager) => void;
  } = {},
): Promise<Operator> {
  let readers = new Map<string, CacheReader>();
  const manager = await startTestManager(
    {
      name: 'keystone-operator',
      ...(opts.namespaces ? { namespaces: opts.namespaces } : {}),
      ...(opts.impersonate ? { impersonate: opts.impersonate } : {}),
    },
    (m) => {
      opts.beforeRegister?.(m);
      readers = rememberingReaders(m);
      // The whole operator, as main.ts wires it (the registration controllers' RBAC is exercised too).
      if (opts.withRegistration) registerKeystoneControllers(m, TEST_DEFAULTS);
      else registerKeystoneApiController(m, TEST_DEFAULTS);
    },
  );
  const readerOf = (controller: string): CacheReader => {
    const reader = readers.get(controller);
    if (!reader) throw new Error(`controller ${controller} has not reconciled anything yet`);
    return reader;
  };
  return { manager, readerOf, stop: () => manager.stop() };
}

/** Gets one object; undefined when absent. */
export const getObject = <T extends KubeObject = KubeObject>(
  client: KubeClient,
  kind: KindRef,
  ns: string,
  name: string,
) => client.get<T>(kind, { name, namespace: ns });

export interface Suite {
  client: KubeClient;
  operator: Operator;
  /** A fresh namespace, deleted after the file's tests. */
  namespace(): Promise<string>;
}

/** Registers beforeAll/afterAll for a test file: CRDs, one operator for all namespaces, namespaces cleaned up. */
export function useOperator(hooks: {
  beforeAll: (fn: () => Promise<void>) => void;
  afterAll: (fn: () => Promise<void>) => void;
}): Suite {
  const namespaces: string[] = [];
  const suite = {
    namespace: async () => {
      const ns = await newNamespace(suite.client);
      namespaces.push(ns);
      return ns;
    },
  } as Suite;
  hooks.beforeAll(async () => {
    suite.client = adminClient();
    await installCrds(suite.client);
    suite.operator = await startOperator();
  });
  hooks.afterAll(async () => {
    await suite.operator?.stop();
    for (const ns of namespaces) await suite.client.delete(Kinds.Namespace, { name: ns }).catch(() => false);
  });
  return suite;
}

const WRITE_METHODS = new Set(['create', 'replace', 'apply', 'patch', 'delete']);

/** The same client, recording `<method> <Kind>` for every request that would change something. */
export function countingWrites(inner: KubeClient): { client: KubeClient; writes: string[] } {
  const writes: string[] = [];
  const client = new Proxy(inner, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (typeof prop !== 'string' || !WRITE_METHODS.has(prop) || typeof value !== 'function') return value;
      return (kind: KindRef, ...rest: unknown[]) => {
        writes.push(`${prop} ${kind.kind}`);
        return (value as (...args: unknown[]) => unknown).call(target, kind, ...rest);
      };
    },
  });
  return { client, writes };
}

/**
 * Runs a reconciler once, outside the controller, on `obj` as the operator's cache holds it, with
 * `client` (e.g. a counting one): what a controller would do for one key. Returns the result and
 * the Events it recorded.
 */
export async function reconcileWith<T extends KubeObject>(
  reconciler: Reconciler<T>,
  obj: T,
  io: { client: KubeClient; cache: CacheReader },
): Promise<{ result: ReconcileResult; events: RecordedEvent[] }> {
  const recorder = new FakeRecorder();
  const ref = { namespace: obj.metadata.namespace ?? '', name: obj.metadata.name ?? '' };
  const result = await reconciler(obj, {
    ...io,
    recorder,
    log: createLogger({ name: 'test', level: 'silent', pretty: false }),
    key: `${ref.namespace}/${ref.name}`,
    ref,
    signal: new AbortController().signal,
    controller: (obj.kind ?? '').toLowerCase(),
  });
  return { result: result ?? {}, events: recorder.events };
}
