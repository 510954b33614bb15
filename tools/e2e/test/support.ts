import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { KubeConfig } from '@kubernetes/client-node';
import { examplesDir } from '@stackops/demo/examples';
import {
  createKubeClient,
  type KindRef,
  Kinds,
  type KubeObject,
  type RestKubeClient,
} from '@stackops/lib-common/client';
import { waitFor, waitForDeletion } from '@stackops/lib-common/testing';
import { inject } from 'vitest';
import { stringify } from 'yaml';

const execFileP = promisify(execFile);
export const repoRoot = resolve(import.meta.dirname, '../../..');

export const kubeconfigPath = inject('kubeconfigPath');
const kubectlBin = inject('kubectl');
export const helmBinaryPath = inject('helm');
const netnsPath = inject('netnsPath');
const images = inject('images');
const scratchDir = inject('scratchDir');
/** The cluster's real nodes (two). */
export const realNodes = inject('realNodes');

/**
 * A pod pinned to the first real node: MariaDB and the openstackclient stay there, since the drain
 * and lost-node tests take the other node away and their token loop needs both.
 */
export function onFirstNode(pod: KubeObject): KubeObject {
  const spec = pod['spec'] as Record<string, unknown>;
  return { ...pod, spec: { ...spec, nodeSelector: { 'kubernetes.io/hostname': realNodes[0] } } };
}

export function adminClient(): RestKubeClient {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfigPath);
  return createKubeClient(kc, { fieldManager: 'stackops-e2e' });
}

async function exec(bin: string, args: string[], timeoutMs = 300_000): Promise<string> {
  try {
    const { stdout } = await execFileP(bin, args, {
      env: { ...process.env, KUBECONFIG: kubeconfigPath },
      maxBuffer: 64 * 1024 * 1024,
      timeout: timeoutMs,
    });
    return stdout;
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    throw new Error(
      `${bin.split('/').pop()} ${args.join(' ')} failed:\n${e.stderr || e.message}${e.stdout ? `\n${e.stdout}` : ''}`,
    );
  }
}

/** `kubectl …` with the run's kubeconfig; the error carries kubectl's stderr and stdout. */
export const kubectl = (args: string[], timeoutMs?: number) => exec(kubectlBin, args, timeoutMs);
export const helm = (args: string[]) => exec(helmBinaryPath, args);

/** Writes `text` to a new file named `name` in the run's scratch folder (global setup removes it). */
export function scratchFile(name: string, text: string): string {
  const file = join(mkdtempSync(join(scratchDir, 'f-')), name);
  writeFileSync(file, text);
  return file;
}

/** `helm install --wait` with values given as an object (written to a file: no --set escaping). */
export async function helmInstall(
  release: string,
  chart: string,
  namespace: string,
  values: Record<string, unknown>,
): Promise<void> {
  const file = scratchFile('values.yaml', stringify(values));
  await helm([
    'install',
    release,
    join(repoRoot, 'charts', chart),
    '-n',
    namespace,
    '--create-namespace',
    '-f',
    file,
    '--wait',
    '--timeout',
    '4m',
  ]);
}

/** `kubectl apply --server-side` of one file of tools/demo/examples. */
export async function applyExample(file: string, namespace?: string): Promise<void> {
  await kubectl([
    'apply',
    '--server-side',
    ...(namespace ? ['-n', namespace] : []),
    '-f',
    join(examplesDir, file),
  ]);
}

export interface PodShape extends KubeObject {
  spec: { nodeName?: string; serviceAccountName?: string; containers: { name: string; image: string }[] };
  status?: {
    phase?: string;
    podIP?: string;
    conditions?: { type: string; status: string }[];
    containerStatuses?: {
      name: string;
      ready: boolean;
      restartCount: number;
      imageID: string;
      image: string;
      lastState?: { terminated?: { reason?: string; exitCode?: number; message?: string } };
    }[];
  };
}

const isReady = (p: PodShape) =>
  p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;

/** The release's pods once `count` of them are Ready (kubelet's readiness probe through the pod IP). */
export async function readyPods(
  client: RestKubeClient,
  namespace: string,
  release: string,
  count: number,
  timeoutMs = 120_000,
): Promise<PodShape[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const pods = (
      await client.list<PodShape>(Kinds.Pod, {
        namespace,
        labelSelector: `app.kubernetes.io/instance=${release}`,
      })
    ).items.filter((p) => !p.metadata.deletionTimestamp);
    if (pods.length === count && pods.every(isReady)) {
      await printRestartLogs(pods);
      return pods;
    }
    if (Date.now() > deadline)
      throw new Error(
        `${release}: ${pods.filter(isReady).length}/${count} pods Ready: ${JSON.stringify(pods.map((p) => p.status))}`,
      );
    await new Promise((r) => setTimeout(r, 1000));
  }
}

/** A restart fails the test later (expectRunsForReal); the previous container's log says why. */
async function printRestartLogs(pods: PodShape[]): Promise<void> {
  for (const p of pods) {
    if (!p.status?.containerStatuses?.some((c) => c.restartCount > 0)) continue;
    const log = await kubectl([
      'logs',
      '-n',
      p.metadata.namespace!,
      p.metadata.name!,
      '--previous',
      '--tail=40',
    ]).catch((err: Error) => err.message);
    console.error(`[e2e] ${p.metadata.name} restarted; its previous container's last lines:\n${log}`);
  }
}

/** What every operator pod must show: on a real node, from the image built here, never restarted. */
export function expectRunsForReal(pod: PodShape, operator: string): string[] {
  const problems: string[] = [];
  const image = images.find((i) => i.operator === operator);
  const status = pod.status?.containerStatuses?.[0];
  if (!realNodes.includes(pod.spec.nodeName ?? ''))
    problems.push(`on node ${pod.spec.nodeName}, not a real node (${realNodes.join(', ')})`);
  if (!image) problems.push(`no image built for ${operator}`);
  else {
    if (pod.spec.containers[0]?.image !== image.name)
      problems.push(`image ${pod.spec.containers[0]?.image}, not ${image.name}`);
    if (status?.imageID !== image.configDigest)
      problems.push(`runs image ${status?.imageID}, not the one built here (${image.configDigest})`);
  }
  if ((status?.restartCount ?? 0) !== 0) {
    const last = status?.lastState?.terminated;
    const why = last
      ? ` (last: ${last.reason ?? 'terminated'}, exit ${last.exitCode}${last.message ? `: ${last.message}` : ''})`
      : '';
    problems.push(`restarted ${status?.restartCount} times${why}`);
  }
  return problems;
}

/** Runs `node -e script args…` inside the real node's network namespace (pod IPs reachable); its stdout. */
function nodeScriptInNode(script: string, args: readonly string[]): Promise<string> {
  return exec(
    'nsenter',
    [`--net=${netnsPath}`, '--', process.execPath, '--no-warnings', '-e', script, ...args],
    30_000,
  );
}

/**
 * An HTTP GET from inside the real node's network namespace, where pod IPs are reachable (from the
 * host they are not): Node's fetch run under `nsenter --net`.
 */
export async function fetchInNode(
  url: string,
  opts: { token?: string } = {},
): Promise<{ status: number; body: string }> {
  // HTTPS endpoints here serve self-signed certificates (the operators' secure metrics).
  const script =
    "process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0';" +
    "const h = process.argv[2] ? { Authorization: 'Bearer ' + process.argv[2] } : {};" +
    'fetch(process.argv[1], { headers: h }).then(async (r) => process.stdout.write(JSON.stringify({ status: r.status, body: await r.text() })))' +
    '.catch((e) => { process.stderr.write(String(e)); process.exit(1); })';
  const out = await nodeScriptInNode(script, [url, opts.token ?? '']);
  return JSON.parse(out) as { status: number; body: string };
}

/**
 * The TLS version a client capped at `maxVersion` negotiates with `host:port` from inside the real
 * node's network, or `refused` when the server will not go that low.
 */
export async function tlsVersionInNode(
  host: string,
  port: number,
  maxVersion: 'TLSv1.2' | 'TLSv1.3',
): Promise<string> {
  const script =
    "const s = require('node:tls').connect({ host: process.argv[1], port: Number(process.argv[2]), maxVersion: process.argv[3], rejectUnauthorized: false }," +
    ' () => { process.stdout.write(String(s.getProtocol())); s.end(); });' +
    " s.on('error', () => process.stdout.write('refused'));";
  return nodeScriptInNode(script, [host, String(port), maxVersion]);
}

/**
 * Scrapes an operator pod's secure /metrics as Prometheus would: HTTPS on the pod IP, with the
 * token of a ServiceAccount bound to the release's `<fullname>-metrics-reader` ClusterRole.
 */
export async function scrapeMetrics(
  podIP: string | undefined,
  namespace: string,
  release: string,
): Promise<{ status: number; body: string }> {
  const roles = await kubectl([
    'get',
    'clusterroles',
    '-l',
    `app.kubernetes.io/instance=${release}`,
    '-o',
    'name',
  ]);
  const reader = roles
    .split('\n')
    .map((n) => n.replace(/^clusterrole\.rbac\.authorization\.k8s\.io\//, ''))
    .find((n) => n.endsWith('-metrics-reader'));
  if (!reader) throw new Error(`release ${release} has no metrics-reader ClusterRole`);
  const binding = `${release}-e2e-scraper`;
  await kubectl(['create', 'serviceaccount', 'e2e-scraper', '-n', namespace]).catch(() => '');
  await kubectl([
    'create',
    'clusterrolebinding',
    binding,
    `--clusterrole=${reader}`,
    `--serviceaccount=${namespace}:e2e-scraper`,
  ]).catch(() => '');
  try {
    const token = (await kubectl(['create', 'token', 'e2e-scraper', '-n', namespace])).trim();
    return await fetchInNode(`https://${podIP}:8080/metrics`, { token });
  } finally {
    await kubectl(['delete', 'clusterrolebinding', binding, '--ignore-not-found']);
  }
}

/** `kubectl logs` of a pod, each line parsed as JSON (a line that is not JSON fails the test). */
export async function jsonLogs(namespace: string, pod: string): Promise<Record<string, unknown>[]> {
  const text = await kubectl(['logs', '-n', namespace, pod]);
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((line) => {
      try {
        return JSON.parse(line) as Record<string, unknown>;
      } catch {
        throw new Error(`not a JSON log line: ${line}`);
      }
    });
}

type Condition = { type: string; status: string; message?: string };
const condition = (obj: KubeObject | undefined, type: string): Condition | undefined =>
  ((obj?.['status'] as { conditions?: Condition[] } | undefined)?.conditions ?? []).find(
    (c) => c.type === type,
  );

export async function waitForCondition(
  client: RestKubeClient,
  kind: KindRef,
  ref: { namespace?: string; name: string },
  type: string,
  status: 'True' | 'False',
  timeoutMs = 180_000,
): Promise<KubeObject> {
  const obj = await waitFor(client, kind, ref, (o) => condition(o, type)?.status === status, { timeoutMs });
  if (!obj) throw new Error(`${kind.kind} ${ref.name} vanished`);
  return obj;
}

export interface CrRef {
  kind: KindRef;
  namespace?: string;
  name: string;
}

/**
 * After a test, pass or fail: its custom resources go (while the operator may still release their
 * finalizers), then its release; whatever is still held by a finalizer once no operator runs loses
 * it. A failed test must not leave an operator behind to fight over the next test's resources.
 */
export async function cleanUp(
  client: RestKubeClient,
  crs: readonly CrRef[],
  releases: readonly { release: string; namespace: string }[],
): Promise<void> {
  for (const cr of crs) await client.delete(cr.kind, cr).catch(() => false);
  const deadline = Date.now() + 60_000;
  for (const cr of crs)
    while ((await client.get(cr.kind, cr).catch(() => undefined)) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 500));
  for (const r of releases)
    await helm(['uninstall', r.release, '-n', r.namespace, '--wait']).catch(() => undefined);
  for (const cr of crs)
    await client.patch(cr.kind, cr, { metadata: { finalizers: null } }, 'merge').catch(() => undefined);
}

/** Deletes namespaces and waits until they are gone, so that the next test file can create them again. */
export async function deleteNamespaces(client: RestKubeClient, names: readonly string[]): Promise<void> {
  for (const name of names) await client.delete(Kinds.Namespace, { name }).catch(() => false);
  for (const name of names) await waitForDeletion(client, Kinds.Namespace, { name }, { timeoutMs: 120_000 });
}
