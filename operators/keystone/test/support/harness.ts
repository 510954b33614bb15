import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KubeConfig } from '@kubernetes/client-node';
import { createLogger } from '@stackops/lib-common/logging';
import {
  createKubeClient,
  type Impersonation,
  type KindRef,
  Kinds,
  type KubeClient,
  type KubeObject,
} from '@stackops/lib-common/resources';
import { Manager } from '@stackops/lib-common/runtime';
import { parseAllDocuments } from 'yaml';
import { registerKeystoneApiController } from '../../src/controllers/keystone-api-controller.js';
import { registerKeystoneEndpointController } from '../../src/controllers/keystone-endpoint-controller.js';
import { registerKeystoneServiceController } from '../../src/controllers/keystone-service-controller.js';

/**
 * What the integration tests share: an admin client on the run's control plane (kube-env's vitest
 * setup sets KUBECONFIG), the CRDs installed from the chart, a fresh namespace per test, and the
 * operator's controllers running in-process.
 */

export const CHART_DIR = fileURLToPath(new URL('../../../../charts/keystone-operator/', import.meta.url));
const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));

export function kubeConfig(): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromDefault();
  return kc;
}

export function adminClient(): KubeClient {
  return createKubeClient(kubeConfig(), { fieldManager: 'keystone-tests' });
}

/** Parses a YAML file of one or more documents. */
export function readYaml<T = KubeObject>(path: string): T[] {
  return parseAllDocuments(readFileSync(path, 'utf8'))
    .map((d) => d.toJS() as T)
    .filter((d) => d !== null);
}

export const fixture = (name: string): string => join(FIXTURES, name);

/** Applies the chart's CRDs (and the NetworkAttachmentDefinition CRD multus would bring) and waits until served. */
export async function installCrds(client: KubeClient): Promise<void> {
  const dir = join(CHART_DIR, 'crds');
  const crds = [
    ...readdirSync(dir).flatMap((f) => readYaml(join(dir, f))),
    ...readYaml(fixture('crds/network-attachment-definition.yaml')),
  ];
  for (const crd of crds) await client.apply(Kinds.CustomResourceDefinition, crd, { force: true });
  for (const crd of crds) {
    await waitFor(`CRD ${crd.metadata.name} established`, async () => {
      const live = await client.get<
        KubeObject & { status?: { conditions?: { type: string; status: string }[] } }
      >(Kinds.CustomResourceDefinition, { name: crd.metadata.name ?? '' });
      return live?.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True')
        ? live
        : undefined;
    });
  }
}

let counter = 0;
/** A fresh namespace; `cleanup` deletes it (without waiting). */
export async function newNamespace(client: KubeClient, prefix = 'ks'): Promise<string> {
  const name = `${prefix}-${process.pid.toString(36)}-${Date.now().toString(36)}-${counter++}`;
  await client.create(Kinds.Namespace, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  return name;
}

export interface Operator {
  manager: Manager;
  stop(): Promise<void>;
}

/** Runs the operator's controllers in-process, watching `namespaces`, optionally as another identity. */
export async function startOperator(
  opts: { namespaces?: string[]; impersonate?: Impersonation; withRegistration?: boolean } = {},
): Promise<Operator> {
  const manager = new Manager({
    name: 'keystone-operator',
    kubeConfig: kubeConfig(),
    ...(opts.namespaces ? { namespaces: opts.namespaces } : {}),
    ...(opts.impersonate ? { impersonate: opts.impersonate } : {}),
    logger: createLogger({ name: 'keystone-operator', level: process.env['TEST_LOG_LEVEL'] ?? 'warn' }),
    gracefulShutdownTimeoutMs: 5_000,
  });
  registerKeystoneApiController(manager, {
    keystoneApi: 'quay.io/podified-antelope-centos9/openstack-keystone:current-podified',
  });
  if (opts.withRegistration) {
    // The whole operator, as main.ts wires it (the registration controllers' RBAC is exercised too).
    registerKeystoneServiceController(manager);
    registerKeystoneEndpointController(manager);
  }
  await manager.start();
  return { manager, stop: () => manager.stop() };
}

/**
 * Polls `check` until it returns a value (not undefined/false), or fails after `timeoutMs` with
 * the last value it saw described by `describe` (e.g. the object and its conditions).
 */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined | false>,
  opts: { timeoutMs?: number; intervalMs?: number; describe?: () => Promise<unknown> } = {},
): Promise<T> {
  const deadline = Date.now() + (opts.timeoutMs ?? 60_000);
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const v = await check();
      if (v !== undefined && v !== false) return v;
    } catch (err) {
      lastError = err;
    }
    await new Promise((r) => setTimeout(r, opts.intervalMs ?? 250));
  }
  const state = opts.describe ? await opts.describe().catch((e: unknown) => String(e)) : undefined;
  throw new Error(
    `timed out waiting for ${what}${lastError ? ` (last error: ${String(lastError)})` : ''}` +
      (state !== undefined ? `\nlast state: ${JSON.stringify(state, null, 2)}` : ''),
  );
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
