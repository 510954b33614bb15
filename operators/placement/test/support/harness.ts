import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KubeConfig } from '@kubernetes/client-node';
import { cacheLayout } from '@stackops/kube-env';
import { createLogger } from '@stackops/lib-common/logging';
import {
  createKubeClient,
  type Impersonation,
  Kinds,
  type KubeObject,
  type RestKubeClient,
} from '@stackops/lib-common/resources';
import { Manager } from '@stackops/lib-common/runtime';
import { Registry } from 'prom-client';
import { parseAllDocuments } from 'yaml';
import { PlacementAPIKind } from '../../src/api/kinds.js';
import { registerPlacementApiController } from '../../src/controllers/placement-api-controller.js';
import type { PlacementDefaults } from '../../src/controllers/state.js';

/**
 * What the integration tests share: an admin client on the run's control plane (kube-env's vitest
 * setup sets KUBECONFIG), CRDs from the charts, a fresh namespace per test, and the operator's
 * controllers running in-process, watching only the namespaces of the test file.
 */

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));
export const CHART_DIR = here('../../../../charts/placement-operator/');
const KEYSTONE_CHART_CRDS = here('../../../../charts/keystone-operator/crds/');
const FIXTURES = here('../fixtures/');

export const fixture = (name: string): string => join(FIXTURES, name);
export const tool = (name: 'kubectl' | 'helm'): string => join(cacheLayout().bin, name);

export const TEST_DEFAULTS: PlacementDefaults = {
  apiImage: 'quay.io/podified-antelope-centos9/openstack-placement-api:current-podified',
  mariadbImage: 'quay.io/podified-antelope-centos9/openstack-mariadb:current-podified',
};

export function kubeConfig(): KubeConfig {
  const path = process.env['KUBECONFIG'];
  if (!path)
    throw new Error('KUBECONFIG is not set: run the tests through the @stackops/kube-env vitest setup');
  const kc = new KubeConfig();
  kc.loadFromFile(path);
  return kc;
}

export const adminClient = (): RestKubeClient =>
  createKubeClient(kubeConfig(), { fieldManager: 'placement-tests' });

/** Parses a YAML file of one or more documents. */
export function readYaml<T = KubeObject>(path: string): T[] {
  return parseAllDocuments(readFileSync(path, 'utf8'))
    .map((d) => d.toJS() as T)
    .filter((d) => d !== null);
}

/**
 * Polls `check` until it returns a value (not undefined/false), or fails after `timeoutMs` with the
 * last error and `describe()` (e.g. the object and its conditions) in the message.
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

type CrdObject = KubeObject & { status?: { conditions?: { type: string; status: string }[] } };

/** Applies the placement and keystone CRDs (and multus' NAD CRD) and waits until they are served. */
export async function installCrds(client: RestKubeClient): Promise<void> {
  const files = [
    ...readdirSync(join(CHART_DIR, 'crds')).map((f) => join(CHART_DIR, 'crds', f)),
    ...readdirSync(KEYSTONE_CHART_CRDS).map((f) => join(KEYSTONE_CHART_CRDS, f)),
    fixture('crds/network-attachment-definition.yaml'),
  ];
  const crds = files.flatMap((f) => readYaml(f));
  for (const crd of crds) await client.apply(Kinds.CustomResourceDefinition, crd, { force: true });
  for (const crd of crds) {
    await waitFor(`CRD ${crd.metadata.name} established`, async () => {
      const live = await client.get<CrdObject>(Kinds.CustomResourceDefinition, {
        name: crd.metadata.name ?? '',
      });
      return live?.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True');
    });
  }
}

let counter = 0;
export async function newNamespace(client: RestKubeClient, prefix = 'pl'): Promise<string> {
  const name = `${prefix}-${process.pid.toString(36)}-${Date.now().toString(36)}-${counter++}`;
  await client.create(Kinds.Namespace, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  return name;
}

export interface Operator {
  manager: Manager;
  /** How many reconciles of PlacementAPIs finished so far (any outcome). */
  reconciles(): Promise<number>;
  stop(): Promise<void>;
}

export interface OperatorOptions {
  namespaces: string[];
  impersonate?: Impersonation;
  /** Registers more controllers on the same manager (e.g. keystone-operator's). */
  extra?: (manager: Manager) => void;
}

/** Runs the placement controller in-process over `namespaces`, optionally as another identity. */
export async function startOperator(opts: OperatorOptions): Promise<Operator> {
  // A registry per manager: metrics of this operator only, and no clash between test files.
  const registry = new Registry();
  const manager = new Manager({
    name: 'placement-operator',
    kubeConfig: kubeConfig(),
    namespaces: opts.namespaces,
    ...(opts.impersonate ? { impersonate: opts.impersonate } : {}),
    logger: createLogger({ name: 'placement-operator', level: process.env['TEST_LOG_LEVEL'] ?? 'warn' }),
    gracefulShutdownTimeoutMs: 5_000,
    registry,
  });
  registerPlacementApiController(manager, TEST_DEFAULTS);
  opts.extra?.(manager);
  await manager.start();
  const reconciles = async () => {
    const metric = await registry.getSingleMetric('controller_runtime_reconcile_total')?.get();
    return (metric?.values ?? [])
      .filter((v) => v.labels['controller'] === 'placementapi')
      .reduce((sum, v) => sum + v.value, 0);
  };
  return { manager, reconciles, stop: () => manager.stop() };
}

export interface Suite {
  client: RestKubeClient;
  operator: Operator;
  /** Namespaces created up front for the file (the operator watches exactly these). */
  namespaces: string[];
}

/**
 * beforeAll/afterAll for a test file: CRDs, `count` namespaces, one operator watching them;
 * namespaces deleted afterwards.
 */
export function useOperator(
  hooks: { beforeAll: (fn: () => Promise<void>) => void; afterAll: (fn: () => Promise<void>) => void },
  count: number,
  extra?: (manager: Manager) => void,
): Suite {
  const suite = { namespaces: [] } as unknown as Suite;
  hooks.beforeAll(async () => {
    suite.client = adminClient();
    await installCrds(suite.client);
    for (let i = 0; i < count; i++) suite.namespaces.push(await newNamespace(suite.client));
    suite.operator = await startOperator({ namespaces: suite.namespaces, ...(extra ? { extra } : {}) });
  });
  hooks.afterAll(async () => {
    // Namespaces go while the operator still runs, so it can take its finalizers off.
    for (const ns of suite.namespaces)
      await suite.client.delete(Kinds.Namespace, { name: ns }).catch(() => false);
    await waitFor(
      'PlacementAPIs of the test namespaces deleted',
      async () => {
        for (const ns of suite.namespaces) {
          if ((await suite.client.list(PlacementAPIKind, { namespace: ns })).items.length > 0) return false;
        }
        return true;
      },
      { timeoutMs: 30_000 },
    ).catch(() => undefined);
    await suite.operator?.stop();
    suite.client?.close();
  });
  return suite;
}
