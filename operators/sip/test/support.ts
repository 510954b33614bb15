/** Integration test support: a client on the real control plane, namespaces, CRDs, fixtures, the operator in-process. */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { cacheLayout } from '@stackops/kube-env';
import {
  createKubeClient,
  type Impersonation,
  Kinds,
  type RestKubeClient,
} from '@stackops/lib-common/client';
import type { Manager } from '@stackops/lib-common/runtime';
import {
  base64,
  installCrds,
  loadTestKubeConfig,
  readCrds,
  startTestManager,
  type TestNamespace,
  waitUntil,
} from '@stackops/lib-common/testing';
import { type BareMetalHost, BareMetalHostKind, type SIPCluster, SIPClusterKind } from '../src/api/kinds.js';
import type { SIPClusterSpec } from '../src/api/sipcluster.js';
import { registerSipClusterController } from '../src/controllers/sipcluster-controller.js';

export const CHART_DIR = join(import.meta.dirname, '../../../charts/sip-operator');

/** kubectl or helm from kube-env's pinned binaries. */
export const tool = (name: 'kubectl' | 'helm'): string => join(cacheLayout().bin, name);

export const testClient = (fieldManager = 'sip-operator-tests'): RestKubeClient =>
  createKubeClient(loadTestKubeConfig(), { fieldManager });

/**
 * Deletes a test namespace, first dropping the finalizers of SIPClusters no operator will process
 * anymore (their namespace could not go otherwise).
 */
export async function deleteNamespace(client: RestKubeClient, ns: TestNamespace): Promise<void> {
  const { items } = await client.list<SIPCluster>(SIPClusterKind, { namespace: ns.name });
  for (const sip of items) {
    if (sip.metadata.finalizers?.length) {
      await client.patch(
        SIPClusterKind,
        { namespace: ns.name, name: sip.metadata.name ?? '' },
        { metadata: { finalizers: null } },
        'merge',
      );
    }
  }
  await ns.delete();
}

/**
 * Installs the chart's CRDs: crds/ (SIPCluster) and the BareMetalHost CRD, a template read without
 * its `{{ }}` guard lines.
 */
export async function installChartCrds(client: RestKubeClient): Promise<void> {
  await installCrds(client, join(CHART_DIR, 'crds'));
  const templates = join(CHART_DIR, 'templates');
  const templated = readdirSync(templates)
    .filter((n) => n.startsWith('crd-'))
    .flatMap((f) => readCrds(join(templates, f), { dropTemplateLines: true }));
  await installCrds(client, templated);
}

export interface RunningOperator {
  manager: Manager;
  stop(): Promise<void>;
}

/** Runs the SIP operator in-process, watching only the given namespaces (test isolation). */
export async function startOperator(
  namespaces: string[],
  opts: { impersonate?: Impersonation; client?: RestKubeClient } = {},
): Promise<RunningOperator> {
  const manager = await startTestManager(
    {
      name: 'sip-operator',
      namespaces,
      ...(opts.impersonate ? { impersonate: opts.impersonate } : {}),
      ...(opts.client ? { client: opts.client } : {}),
    },
    (m) => {
      registerSipClusterController(m, {
        images: { loadBalancer: 'haproxy:test', jumpHost: 'jump-host:test', auth: 'dex:test' },
        waitingRetryMs: 2000,
        invalidInputRetryMs: 10_000,
      });
    },
  );
  return { manager, stop: () => manager.stop() };
}

export const fromB64 = (s: string | undefined) => Buffer.from(s ?? '', 'base64').toString('utf8');

/** An OpenStack network_data document with one network per interface id. */
function networkData(ips: Record<string, string>): string {
  const entries = Object.entries(ips);
  return JSON.stringify({
    links: entries.map((_, i) => ({ id: `eth${i}`, type: 'phy' })),
    networks: entries.map(([id, ip], i) => ({
      id,
      type: 'ipv4',
      link: `eth${i}`,
      ip_address: ip,
      netmask: '255.255.255.0',
    })),
  });
}

export interface HostFixture {
  name: string;
  labels?: Record<string, string>;
  /** Interface id → IP; undefined = no networkData Secret at all. */
  ips?: Record<string, string> | undefined;
  bmcAddress?: string;
}

/** Creates a BareMetalHost with its networkData and BMC credentials Secrets. */
export async function createHost(
  client: RestKubeClient,
  namespace: string,
  h: HostFixture,
): Promise<BareMetalHost> {
  if (h.ips) await putNetworkData(client, namespace, h.name, h.ips);
  await client.create(Kinds.Secret, {
    metadata: { name: `${h.name}-bmc`, namespace },
    data: { username: base64('admin'), password: base64(`pw-${h.name}`) },
  });
  return client.create<BareMetalHost>(BareMetalHostKind, {
    apiVersion: 'metal3.io/v1alpha1',
    kind: 'BareMetalHost',
    metadata: { name: h.name, namespace, labels: h.labels ?? {} },
    spec: {
      online: true,
      bmc: {
        address: h.bmcAddress ?? `redfish+https://10.9.9.9/redfish/v1/Systems/${h.name}`,
        credentialsName: `${h.name}-bmc`,
      },
      networkData: { name: `${h.name}-networkdata`, namespace },
    },
  });
}

/** Creates or replaces a host's networkData Secret. */
export async function putNetworkData(
  client: RestKubeClient,
  namespace: string,
  host: string,
  ips: Record<string, string>,
) {
  await client.apply(
    Kinds.Secret,
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: `${host}-networkdata`, namespace },
      data: { networkData: base64(networkData(ips)) },
    },
    { force: true },
  );
}

export async function createSipCluster(
  client: RestKubeClient,
  namespace: string,
  name: string,
  spec: SIPClusterSpec,
) {
  return client.create<SIPCluster>(SIPClusterKind, {
    apiVersion: 'airship.airshipit.org/v1',
    kind: 'SIPCluster',
    metadata: { name, namespace },
    spec,
  });
}

/** The Ready condition of a SIPCluster, read from the API server. */
async function readyOf(client: RestKubeClient, namespace: string, name: string) {
  const sip = await client.get<SIPCluster>(SIPClusterKind, { namespace, name });
  return sip?.status?.conditions?.find((c) => c.type === 'Ready');
}

/** Waits for Ready with the given status (and reason); the timeout error shows the condition. */
export async function waitForReady(
  client: RestKubeClient,
  namespace: string,
  name: string,
  status: 'True' | 'False' = 'True',
  reason?: string,
  timeoutMs = 30_000,
) {
  return waitUntil(
    `SIPCluster ${namespace}/${name} Ready=${status}${reason ? `/${reason}` : ''}`,
    async () => {
      const ready = await readyOf(client, namespace, name);
      return ready?.status === status && (!reason || ready.reason === reason) ? ready : undefined;
    },
    { timeoutMs, describe: () => readyOf(client, namespace, name) },
  );
}

/** `sip.airshipit.org/cluster-name` of every host in a namespace, by host name. */
export async function hostOwners(
  client: RestKubeClient,
  namespace: string,
): Promise<Record<string, string | undefined>> {
  const { items } = await client.list<BareMetalHost>(BareMetalHostKind, { namespace });
  return Object.fromEntries(
    items.map((b) => [b.metadata.name ?? '', b.metadata.labels?.['sip.airshipit.org/cluster-name']]),
  );
}
