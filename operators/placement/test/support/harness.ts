import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cacheLayout } from '@stackops/kube-env';
import {
  createKubeClient,
  type Impersonation,
  Kinds,
  type KubeObject,
  type RestKubeClient,
} from '@stackops/lib-common/client';
import type { Manager } from '@stackops/lib-common/runtime';
import {
  createTestNamespace,
  installCrds as installCrdsFrom,
  loadTestKubeConfig,
  reconcileCount,
  startTestManager,
  waitUntil,
} from '@stackops/lib-common/testing';
import { parseAllDocuments } from 'yaml';
import { PlacementAPIKind } from '../../src/api/kinds.js';
import type { PlacementDefaults } from '../../src/config/defaults.js';
import { registerPlacementApiController } from '../../src/controllers/placement-api-controller.js';

/**
 * What the integration tests share, on top of lib-common's testing helpers: the CRDs placement
 * needs (its own, keystone's, multus' NAD), a client, and the operator's controllers running
 * in-process, watching only the namespaces of the test file.
 */

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));
export const CHART_DIR = here('../../../../charts/placement-operator/');
/** This package's version: the chart's appVersion and the operator image's tag. */
export const PACKAGE_VERSION: string = JSON.parse(readFileSync(here('../../package.json'), 'utf8')).version;
const KEYSTONE_CHART_CRDS = here('../../../../charts/keystone-operator/crds/');
const FIXTURES = here('../fixtures/');

export const fixture = (name: string): string => join(FIXTURES, name);
export const tool = (name: 'kubectl' | 'helm'): string => join(cacheLayout().bin, name);

const TEST_DEFAULTS: PlacementDefaults = {
  apiImage: 'quay.io/podified-antelope-centos9/openstack-placement-api:current-podified',
  mariadbImage: 'quay.io/podified-antelope-centos9/openstack-mariadb:current-podified',
};

export const adminClient = (): RestKubeClient =>
  createKubeClient(loadTestKubeConfig(), { fieldManager: 'placement-tests' });

/** Parses a YAML file of one or more documents. */
export function readYaml<T = KubeObject>(path: string): T[] {
  return parseAllDocuments(readFileSync(path, 'utf8'))
    .map((d) => d.toJS() as T)
    .filter((d) => d !== null);
}

/** The placement and keystone CRDs and multus' NetworkAttachmentDefinition CRD, Established. */
export async function installCrds(client: RestKubeClient): Promise<void> {
  await installCrdsFrom(client, join(CHART_DIR, 'crds'));
  await installCrdsFrom(client, KEYSTONE_CHART_CRDS);
  await installCrdsFrom(client, fixture('crds/network-attachment-definition.yaml'));
}

export const newNamespace = async (client: RestKubeClient, prefix = 'pl'): Promise<string> =>
  (await createTestNamespace(client, prefix)).name;

export interface Operator {
  manager: Manager;
  /** How many reconciles of PlacementAPIs finished so far (any outcome). */
  reconciles(): Promise<number>;
  stop(): Promise<void>;
}

/** Runs the placement controller in-process over `namespaces`, optionally as another identity. */
export async function startOperator(opts: {
  namespaces: string[];
  impersonate?: Impersonation;
}): Promise<Operator> {
  const manager = await startTestManager(
    {
      name: 'placement-operator',
      namespaces: opts.namespaces,
      ...(opts.impersonate ? { impersonate: opts.impersonate } : {}),
    },
    (m) => registerPlacementApiController(m, TEST_DEFAULTS),
  );
  return { manager, reconciles: () => reconcileCount(manager, 'placementapi'), stop: () => manager.stop() };
}

export interface Suite {
  client: RestKubeClient;
  operator: Operator;
  /** Namespaces created up front for the file (the operator watches exactly these). */
  namespaces: string[];
}

/**
 * beforeAll/afterAll for a test file: CRDs, `count` namespaces, one operator watching them;
 * namespaces deleted afterwards while the operator still runs (it takes its finalizers off).
 */
export function useOperator(
  hooks: { beforeAll: (fn: () => Promise<void>) => void; afterAll: (fn: () => Promise<void>) => void },
  count: number,
): Suite {
  const suite = { namespaces: [] } as unknown as Suite;
  hooks.beforeAll(async () => {
    suite.client = adminClient();
    await installCrds(suite.client);
    for (let i = 0; i < count; i++) suite.namespaces.push(await newNamespace(suite.client));
    suite.operator = await startOperator({ namespaces: suite.namespaces });
  });
  hooks.afterAll(async () => {
    for (const ns of suite.namespaces)
      await suite.client.delete(Kinds.Namespace, { name: ns }).catch(() => false);
    await waitUntil(
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
