/** Integration test support: a client on the real control plane, namespaces, CRDs, fixtures, the operator in-process. */
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cacheLayout } from '@stackops/kube-env';
import {
  createKubeClient,
  type Impersonation,
  Kinds,
  type KubeObject,
  type RestKubeClient,
} from '@stackops/lib-common/resources';
import type { Manager } from '@stackops/lib-common/runtime';
import { loadTestKubeConfig, startTestManager } from '@stackops/lib-common/testing';
import { parseAllDocuments } from 'yaml';
import { type BareMetalHost, BareMetalHostKind, type SIPCluster, SIPClusterKind } from '../src/api/kinds.js';
import type { SIPClusterSpec } from '../src/api/sipcluster.js';
import { registerSipClusterController } from '../src/controllers/sipcluster-controller.js';

export const CHART_DIR = join(import.meta.dirname, '../../../charts/sip-operator');

/** kubectl or helm from kube-env's pinned binaries. */
export const tool = (name: 'kubectl' | 'helm'): string => join(cacheLayout().bin, name);

export const testClient = (fieldManager = 'sip-operator-tests'): RestKubeClient =>
  createKubeClient(loadTestKubeConfig(), { fieldManager });

export async function createNamespace(client: RestKubeClient, prefix: string): Promise<string> {
  const name = `${prefix}-${randomBytes(3).toString('hex')}`;
  await client.create(Kinds.Namespace, { metadata: { name } });
  return name;
}

/** Deletes a namespace, first dropping the finalizers of SIPClusters no operator will process anymore. */
export async function deleteNamespace(client: RestKubeClient, namespace: string): Promise<void> {
  const { items } = await client.list<SIPCluster>(SIPClusterKind, { namespace });
  for (const sip of items) {
    if (sip.metadata.finalizers?.length) {
      await client.patch(
        SIPClusterKind,
        { namespace, name: sip.metadata.name ?? '' },
        { metadata: { finalizers: null } },
        'merge',
      );
    }
  }
  await client.delete(Kinds.Namespace, { name: namespace });
}

/** Polls until `probe` returns something other than undefined/false; the timeout error shows the last value. */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined | false>,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    const v = await probe();
    if (v !== undefined && v !== false) return v;
    last = v;
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; last: ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The CRD documents of the chart: crds/ and the BareMetalHost template (its `{{ }}` guard lines dropped). */
export function chartCrds(): KubeObject[] {
  const files = [
    ...readdirSync(join(CHART_DIR, 'crds')).map((f) => join(CHART_DIR, 'crds', f)),
    ...readdirSync(join(CHART_DIR, 'templates'))
      .filter((f) => f.startsWith('crd-'))
      .map((f) => join(CHART_DIR, 'templates', f)),
  ];
  return files.flatMap((f) => {
    const text = readFileSync(f, 'utf8')
      .split('\n')
      .filter((l) => !l.trimStart().startsWith('{{'))
      .join('\n');
    return parseAllDocuments(text)
      .map((d) => d.toJS() as KubeObject | null)
      .filter((o): o is KubeObject => o !== null);
  });
}

/** Installs (server-side applies) the chart's CRDs and waits until they are established. */
export async function installCrds(client: RestKubeClient): Promise<void> {
  for (const crd of chartCrds()) {
    await client.apply(Kinds.CustomResourceDefinition, crd, { force: true });
    await waitFor(`CRD ${crd.metadata.name} established`, async () => {
      const live = await client.get<
        KubeObject & { status?: { conditions?: { type: string; status: string }[] } }
      >(Kinds.CustomResourceDefinition, { name: crd.metadata.name ?? '' });
      return live?.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True');
    });
  }
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

const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
export const fromB64 = (s: string | undefined) => Buffer.from(s ?? '', 'base64').toString('utf8');

/** An OpenStack network_data document with one network per interface id. */
export function networkData(ips: Record<string, string>): string {
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
    data: { username: b64('admin'), password: b64(`pw-${h.name}`) },
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
      data: { networkData: b64(networkData(ips)) },
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
export async function readyOf(client: RestKubeClient, namespace: string, name: string) {
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
  let last: unknown;
  return waitFor(
    `SIPCluster ${namespace}/${name} Ready=${status}${reason ? `/${reason}` : ''}`,
    async () => {
      const ready = await readyOf(client, namespace, name);
      last = ready;
      return ready?.status === status && (!reason || ready.reason === reason) ? ready : undefined;
    },
    timeoutMs,
  ).catch((e: Error) => {
    throw new Error(`${e.message}; condition: ${JSON.stringify(last)}`);
  });
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
