/** Integration test support: a client on the real control plane, the CRD, the operator in-process, waits. */

import { join } from 'node:path';
import { cacheLayout } from '@stackops/kube-env';
import {
  createKubeClient,
  type Impersonation,
  type KindRef,
  Kinds,
  type RestKubeClient,
} from '@stackops/lib-common/client';
import type { Controller, Manager } from '@stackops/lib-common/runtime';
import {
  conditionOf,
  createTestNamespace,
  type ExpectedConditions,
  installCrds,
  loadTestKubeConfig,
  runCommand,
  startTestManager,
  waitForConditions as waitForConditionsOf,
  waitUntil,
} from '@stackops/lib-common/testing';
import { afterAll, beforeAll } from 'vitest';
import { OPERATOR_CONFIG_NAME } from '../src/api/constants.js';
import { type NetworkAddonsConfig, NetworkAddonsConfigKind } from '../src/api/kinds.js';
import type { NetworkAddonsConfigSpec } from '../src/api/network-addons-config.js';
import type { ComponentImages } from '../src/config/images.js';
import { DEFAULT_IMAGES } from '../src/config/images.js';
import type { OperatorEnv } from '../src/config/operator-env.js';
import { FIELD_MANAGER, OPERATOR_NAME } from '../src/config/operator-env.js';
import { registerNetworkAddonsConfigController } from '../src/controllers/network-addons-config-controller.js';
import { RENDERED_KINDS } from '../src/resources/kinds.js';
import { MANAGED_SELECTOR } from '../src/resources/labels.js';

export const CHART_DIR = join(import.meta.dirname, '../../../charts/network-addons-operator');

/** kubectl or helm from kube-env's pinned binaries. */
export const tool = (name: 'kubectl' | 'helm'): string => join(cacheLayout().bin, name);

/** kubectl or helm, without blocking the event loop (the operator under test runs in this process). */
export const run = (name: 'kubectl' | 'helm', args: string[], input?: string): Promise<string> =>
  runCommand(tool(name), args, input === undefined ? {} : { input });

const testClient = (fieldManager = 'network-addons-tests'): RestKubeClient =>
  createKubeClient(loadTestKubeConfig(), { fieldManager });

const createNamespace = async (client: RestKubeClient, prefix: string): Promise<string> =>
  (await createTestNamespace(client, prefix)).name;

/** Applies the chart's CRD and waits until it is established. */
async function installCrd(client: RestKubeClient): Promise<void> {
  await installCrds(client, join(CHART_DIR, 'crds'));
}

export const testImages = (tag: string): ComponentImages =>
  Object.fromEntries(
    Object.keys(DEFAULT_IMAGES).map((k) => [k, `registry.test/${k}:${tag}`]),
  ) as unknown as ComponentImages;

export interface OperatorOptions {
  namespace: string;
  operandNamespace?: string;
  version?: string;
  images?: ComponentImages;
  impersonate?: Impersonation;
}

export interface RunningOperator {
  controller: Controller<NetworkAddonsConfig>;
  manager: Manager;
  stop(): Promise<void>;
}

/** Runs the operator in-process against the local control plane. */
export async function startOperator(opts: OperatorOptions): Promise<RunningOperator> {
  const env: OperatorEnv = {
    operatorNamespace: opts.namespace,
    operandNamespace: opts.operandNamespace ?? opts.namespace,
    operatorVersion: opts.version ?? '0.1.0',
    images: opts.images ?? testImages('v1'),
  };
  let controller: Controller<NetworkAddonsConfig> | undefined;
  const manager = await startTestManager(
    {
      name: OPERATOR_NAME,
      fieldManager: FIELD_MANAGER,
      ...(opts.impersonate ? { impersonate: opts.impersonate } : {}),
    },
    (m) => {
      controller = registerNetworkAddonsConfigController(m, { env });
    },
  );
  if (!controller) throw new Error('the NetworkAddonsConfig controller was not registered');
  return { controller, manager, stop: () => manager.stop() };
}

export interface NetworkAddonsSuite {
  readonly client: RestKubeClient;
  /** The namespace made for the file (the operator's, unless the file says otherwise). */
  readonly ns: string;
  /** The operator running in-process; throws when none runs (`operator: false`, or after `stop`). */
  readonly op: RunningOperator;
  /** The operator running in-process, if one does. */
  readonly running: RunningOperator | undefined;
  /** Stops the operator, if any, and starts it again in `ns` with these options. */
  restart(opts?: Omit<OperatorOptions, 'namespace'>): Promise<RunningOperator>;
  /** Stops the operator, if any. */
  stop(): Promise<void>;
}

/**
 * The hooks each integration file here opens with, registered where it is called: a client, the
 * CRD, no NetworkAddonsConfig left by another file (the object is cluster-wide), a namespace and
 * the operator in it; after the file, the operator stopped, the config, what `cleanup` removes
 * and the namespace deleted, whatever fails first.
 */
export function useNetworkAddonsSuite(
  prefix: string,
  opts: { operator?: Omit<OperatorOptions, 'namespace'> | false; cleanup?: () => Promise<unknown> } = {},
): NetworkAddonsSuite {
  let client: RestKubeClient | undefined;
  let ns: string | undefined;
  let op: RunningOperator | undefined;
  const need = <T>(v: T | undefined, what: string): T => {
    if (v === undefined) throw new Error(`useNetworkAddonsSuite: ${what} is only there inside a test`);
    return v;
  };
  const suite: NetworkAddonsSuite = {
    get client() {
      return need(client, 'the client');
    },
    get ns() {
      return need(ns, 'the namespace');
    },
    get op() {
      return need(op, 'a running operator');
    },
    get running() {
      return op;
    },
    async restart(o = {}) {
      await suite.stop();
      op = await startOperator({ ...o, namespace: suite.ns });
      return op;
    },
    async stop() {
      await op?.stop();
      op = undefined;
    },
  };
  beforeAll(async () => {
    client = testClient();
    await installCrd(client);
    await deleteConfig(client);
    ns = await createNamespace(client, prefix);
    if (opts.operator !== false) await suite.restart(opts.operator);
  });
  afterAll(async () => {
    if (!client) return;
    try {
      await op?.stop();
      await deleteConfig(client);
      await opts.cleanup?.();
    } finally {
      if (ns) await client.delete(Kinds.Namespace, { name: ns });
      client.close();
    }
  });
  return suite;
}

export const getConfig = (client: RestKubeClient, name = OPERATOR_CONFIG_NAME) =>
  client.get<NetworkAddonsConfig>(NetworkAddonsConfigKind, { name });

/** Creates the NetworkAddonsConfig or replaces its spec (labels too, when given). */
export async function setSpec(
  client: RestKubeClient,
  spec: NetworkAddonsConfigSpec,
  opts: { name?: string; labels?: Record<string, string>; kind?: KindRef } = {},
): Promise<NetworkAddonsConfig> {
  const kind = opts.kind ?? NetworkAddonsConfigKind;
  const name = opts.name ?? OPERATOR_CONFIG_NAME;
  for (;;) {
    const live = await client.get<NetworkAddonsConfig>(kind, { name });
    const metadata = { ...(live?.metadata ?? { name }), ...(opts.labels ? { labels: opts.labels } : {}) };
    try {
      if (!live) return await client.create<NetworkAddonsConfig>(kind, { metadata, spec });
      return await client.replace<NetworkAddonsConfig>(kind, { ...live, metadata, spec });
    } catch (err) {
      if ((err as { code?: number }).code !== 409) throw err;
    }
  }
}

export { conditionOf as condition };

/** Waits until the conditions are as given in a status of the current spec; returns the CR. */
export const waitForConditions = (
  client: RestKubeClient,
  want: ExpectedConditions,
  timeoutMs = 60_000,
  name = OPERATOR_CONFIG_NAME,
): Promise<NetworkAddonsConfig> =>
  waitForConditionsOf<NetworkAddonsConfig>(client, NetworkAddonsConfigKind, { name }, want, {
    timeoutMs,
    current: true,
  });

export const waitAvailable = (client: RestKubeClient, timeoutMs = 60_000) =>
  waitForConditions(client, { Available: 'True', Progressing: 'False', Degraded: 'False' }, timeoutMs);

/** Every object carrying the operator's managed-by label, cluster-wide, by kind/namespace/name. */
export async function managedObjects(client: RestKubeClient, ownerUid?: string): Promise<string[]> {
  const out: string[] = [];
  for (const kind of RENDERED_KINDS) {
    const { items } = await client.list(kind, { labelSelector: MANAGED_SELECTOR });
    for (const o of items) {
      if (ownerUid && !o.metadata.ownerReferences?.some((r) => r.uid === ownerUid)) continue;
      out.push(`${kind.kind}/${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name}`);
    }
  }
  return out.sort();
}

/** Deletes the NetworkAddonsConfig and waits until it and everything it owned are gone. */
export async function deleteConfig(client: RestKubeClient, name = OPERATOR_CONFIG_NAME): Promise<void> {
  const cr = await getConfig(client, name);
  if (!cr) return;
  await client.delete(NetworkAddonsConfigKind, { name }, { propagationPolicy: 'Background' });
  await waitUntil('NetworkAddonsConfig deleted', async () => !(await getConfig(client, name)));
  await waitUntil(
    'owned objects garbage-collected',
    async () => (await managedObjects(client, cr.metadata.uid)).length === 0,
    { timeoutMs: 90_000, describe: () => managedObjects(client, cr.metadata.uid) },
  );
}

/** Records every status the NetworkAddonsConfig goes through, from a watch. */
export class StatusRecorder {
  readonly seen: NetworkAddonsConfig[] = [];
  private readonly abort = new AbortController();
  private readonly done: Promise<void>;

  constructor(client: RestKubeClient, name = OPERATOR_CONFIG_NAME) {
    this.done = client
      .watch<NetworkAddonsConfig>(
        NetworkAddonsConfigKind,
        { fieldSelector: `metadata.name=${name}`, signal: this.abort.signal },
        (e) => {
          if (e.type === 'ADDED' || e.type === 'MODIFIED') this.seen.push(e.object);
        },
      )
      .catch(() => undefined);
  }

  async stop(): Promise<NetworkAddonsConfig[]> {
    this.abort.abort();
    await this.done;
    return this.seen;
  }
}

export const workloadsIn = async (client: RestKubeClient, namespace: string) => {
  const ds = await client.list(Kinds.DaemonSet, { namespace });
  const dep = await client.list(Kinds.Deployment, { namespace });
  return [...ds.items, ...dep.items];
};
