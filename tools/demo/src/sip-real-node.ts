import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { type ControlPlane, realNodeLabels, realNodeName } from '@stackops/kube-env';
import { Kinds, type KubeClient, type KubeObject } from '@stackops/lib-common/client';
import { realNodeTaint } from './real-node.js';
import { SIP_NAMESPACE, SIPClusterKind } from './targets.js';

/**
 * The first real node: the workers' addresses are put on its link and the traffic is sent from its
 * namespace, so SIP's pods stay there when there are several real nodes.
 */
const firstRealNode = { ...realNodeLabels, 'kubernetes.io/hostname': realNodeName };

const execFileP = promisify(execFile);

/**
 * The example's workers (tools/demo/examples/40-sipcluster.yaml), moved from their documentation
 * addresses into the node's subnet (pods route only there and to Services), and the first port of
 * the worker LB's nodePortRange.
 */
const WORKERS = { 'worker-1': '10.250.0.21', 'worker-2': '10.250.0.22' } as const;
const WORKER_PORT = 30002;
const JUMP_HOST_PORT = 30000;
/** kube-env's veth end inside the node's namespace: the example's worker IPs become addresses there. */
const NODE_LINK = 'kenv1';

const inNode = (netnsPath: string, argv: string[], timeout = 30_000) =>
  execFileP('nsenter', [`--net=${netnsPath}`, '--', ...argv], { timeout });

/**
 * The fake workers: one hostNetwork pod on the real node (the jump-host image has python3) with an
 * HTTP server on each worker's IP and the first port of the worker LB's range, answering its name.
 */
function fakeWorkersPod(image: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'fake-workers', namespace: SIP_NAMESPACE, labels: { app: 'fake-workers' } },
    spec: {
      hostNetwork: true,
      nodeSelector: { ...firstRealNode },
      terminationGracePeriodSeconds: 1,
      containers: Object.entries(WORKERS).map(([name, ip]) => ({
        name,
        image,
        imagePullPolicy: 'Never',
        command: [
          'python3',
          '-c',
          [
            'import http.server as h',
            'class H(h.BaseHTTPRequestHandler):',
            '  def do_GET(s):',
            `    b = b"${name}:${WORKER_PORT} (a fake host of the demo)\\n"`,
            '    s.send_response(200); s.send_header("Content-Length", str(len(b))); s.end_headers(); s.wfile.write(b)',
            `h.HTTPServer(("${ip}", ${WORKER_PORT}), H).serve_forever()`,
          ].join('\n'),
        ],
        readinessProbe: { tcpSocket: { host: ip, port: WORKER_PORT }, periodSeconds: 2 },
      })),
    },
  } as KubeObject;
}

/** What `make demo` shows of SIP on the real node. */
export interface SipOnRealNode {
  /** The demo's own ssh key for the jump host (private key file), removed by `cleanup`. */
  keyFile: string;
  cleanup: () => void;
}

/**
 * Runs the example SIPCluster's load balancers and jump host on the real node: the namespace
 * tolerates the real node's taint, the services select it (Dex stays on kwok: no image), the demo's
 * own key is authorized on the jump host, the workers' IPs (moved into the node's subnet through
 * their networkData Secrets) exist in the node's network with a fake worker behind each.
 */
export async function sipOnRealNode(
  client: KubeClient,
  netnsPath: string,
  images: { jumpHost: string },
): Promise<SipOnRealNode> {
  const dir = mkdtempSync(join(tmpdir(), 'stackops-demo-sip-'));
  const keyFile = join(dir, 'id_ed25519');
  await execFileP('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'stackops-demo', '-f', keyFile]);
  for (const ip of Object.values(WORKERS))
    await inNode(netnsPath, ['ip', 'addr', 'replace', `${ip}/32`, 'dev', NODE_LINK]);
  await client.patch(
    Kinds.Namespace,
    { name: SIP_NAMESPACE },
    {
      metadata: {
        annotations: {
          'scheduler.alpha.kubernetes.io/defaultTolerations': JSON.stringify([
            { operator: 'Equal', ...realNodeTaint },
          ]),
        },
      },
    },
    'merge',
  );
  const sip = await client.get<
    KubeObject & { spec: { services: Record<string, Record<string, unknown>[]> } }
  >(SIPClusterKind, { namespace: SIP_NAMESPACE, name: 'tenant-a' });
  if (!sip) throw new Error(`SIPCluster ${SIP_NAMESPACE}/tenant-a not found`);
  const onNode = (kind: string, labels: Record<string, string>): Record<string, unknown>[] =>
    (sip.spec.services[kind] ?? []).map((s) => ({ ...s, nodeLabels: labels }));
  const [jumpHost] = onNode('jumpHost', firstRealNode);
  await client.patch(
    SIPClusterKind,
    { namespace: SIP_NAMESPACE, name: 'tenant-a' },
    {
      spec: {
        services: {
          loadBalancerControlPlane: onNode('loadBalancerControlPlane', firstRealNode),
          loadBalancerWorker: onNode('loadBalancerWorker', firstRealNode),
          jumpHost: [
            {
              ...jumpHost,
              sshAuthorizedKeys: [
                ...((jumpHost?.['sshAuthorizedKeys'] as string[] | undefined) ?? []),
                readFileSync(`${keyFile}.pub`, 'utf8').trim(),
              ],
            },
          ],
          auth: onNode('auth', { type: 'kwok' }),
        },
      },
    },
    'merge',
  );
  for (const [name, ip] of Object.entries(WORKERS)) {
    const networkData = {
      links: [{ id: 'eth0', type: 'phy' }],
      networks: [{ id: 'oam-ipv4', type: 'ipv4', link: 'eth0', ip_address: ip, netmask: '255.255.255.0' }],
    };
    await client.patch(
      Kinds.Secret,
      { namespace: SIP_NAMESPACE, name: `${name}-networkdata` },
      { stringData: { networkData: JSON.stringify(networkData) } },
      'merge',
    );
  }
  await client.create(Kinds.Pod, fakeWorkersPod(images.jumpHost));
  return { keyFile, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** One request through the tenant's worker LB (its NodePort on the node IP), from inside the node's network. */
export async function requestThroughLb(netnsPath: string, nodeIp: string): Promise<string> {
  const url = `http://${nodeIp}:${WORKER_PORT}/`;
  // HAProxy may still be checking a just-started pod's servers: a few tries, a second apart.
  let last: unknown;
  for (let i = 0; i < 20; i++) {
    try {
      const { stdout } = await inNode(netnsPath, ['curl', '-sS', '--max-time', '10', url]);
      return `curl ${url} → ${stdout.trim()}`;
    } catch (err) {
      last = err;
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
  throw last;
}

/**
 * `ssh` to a jump host's NodePort as `ubuntu`, with one key only and no host key bookkeeping (each
 * jump host pod makes its own host keys); append options and the command.
 */
export const jumpHostSsh = (nodeIp: string, port: number, keyFile: string): string[] => [
  'ssh',
  '-i',
  keyFile,
  '-p',
  String(port),
  '-o',
  'IdentitiesOnly=yes',
  '-o',
  'BatchMode=yes',
  '-o',
  'StrictHostKeyChecking=no',
  '-o',
  'UserKnownHostsFile=/dev/null',
  '-o',
  'ConnectTimeout=10',
  `-lubuntu`,
  nodeIp,
];

/** One ssh through the tenant's jump host (its NodePort), with the demo's key, running `host list`. */
export async function sshThroughJumpHost(
  netnsPath: string,
  nodeIp: string,
  keyFile: string,
): Promise<string> {
  const { stdout } = await inNode(
    netnsPath,
    [
      ...jumpHostSsh(nodeIp, JUMP_HOST_PORT, keyFile),
      '-o',
      'LogLevel=ERROR',
      'echo "$(id -un)@$(hostname): hosts $(host list | xargs)"',
    ],
    60_000,
  );
  return `ssh -p ${JUMP_HOST_PORT} ubuntu@${nodeIp} → ${stdout.trim()}`;
}

type PodList = { items: (KubeObject & { status?: { conditions?: { type: string; status: string }[] } })[] };

/** Waits until the pods of `selector` in the SIP namespace are all Ready on the real node (at least one). */
async function podsReadyOnRealNode(
  client: KubeClient,
  selector: string,
  node: string,
  timeoutMs = 240_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { items } = (await client.list(Kinds.Pod, {
      namespace: SIP_NAMESPACE,
      labelSelector: selector,
    })) as PodList;
    const live = items.filter((p) => !p.metadata.deletionTimestamp);
    const ready = (p: (typeof items)[number]) =>
      (p as { spec?: { nodeName?: string } }).spec?.nodeName === node &&
      (p.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
    if (live.length > 0 && live.length === items.length && live.every(ready)) return;
    if (Date.now() > deadline)
      throw new Error(`${selector}: pods not Ready on the real node in ${timeoutMs / 1000}s`);
    await new Promise((r) => setTimeout(r, 1000));
  }
}

/** The demo's step: SIP's services on the real node, their pods Ready through their probes. */
export async function runSipOnRealNode(
  client: KubeClient,
  cp: ControlPlane,
  jumpHost: string,
  note: (line: string) => void,
): Promise<SipOnRealNode> {
  const node = cp.realNode;
  if (!node) throw new Error('no real node');
  const started = await sipOnRealNode(client, node.netnsPath, { jumpHost });
  for (const selector of [
    'app=fake-workers',
    'app.kubernetes.io/instance=loadbalancer-controlplane-tenant-a',
    'app.kubernetes.io/instance=loadbalancer-worker-tenant-a',
    'app.kubernetes.io/instance=jumphost-tenant-a',
  ]) {
    await podsReadyOnRealNode(client, selector, node.name);
    note(`${selector}: Ready on ${node.name}`);
  }
  return started;
}

/** The summary's SIP lines: one request through the tenant's LB and one ssh through its jump host. */
export async function sipTraffic(cp: ControlPlane, sip: SipOnRealNode): Promise<string[]> {
  const node = cp.realNode!;
  const failed = (err: unknown) => `failed: ${err instanceof Error ? err.message : String(err)}`;
  try {
    const lb = await requestThroughLb(node.netnsPath, node.ip).catch(async (err: unknown) => {
      // HAProxy logs its health checks: say why no server answered.
      const { stdout } = await execFileP(cp.kubectl, [
        '--kubeconfig',
        cp.kubeconfigPath,
        'logs',
        '-n',
        SIP_NAMESPACE,
        'deploy/loadbalancer-worker-tenant-a',
        '--tail=12',
      ]).catch(() => ({ stdout: '' }));
      return `${failed(err)}\n${stdout}`;
    });
    const ssh = await sshThroughJumpHost(node.netnsPath, node.ip, sip.keyFile).catch(failed);
    return [`Through the tenant's worker load balancer: ${lb}`, `Through the tenant's jump host: ${ssh}`];
  } finally {
    sip.cleanup();
  }
}
