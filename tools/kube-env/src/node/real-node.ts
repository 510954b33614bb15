import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { httpRequest, type TlsClient } from '../cluster/http.js';
import { writeKubeconfig } from '../cluster/kubeconfig.js';
import type { ClusterLayout, ComponentName } from '../cluster/layout.js';
import { type CacheLayout, kubeEnvRoot } from '../paths.js';
import { type ClusterPki, ensureLeafCertificate } from '../pki/cluster-pki.js';
import { run } from '../util/run.js';
import {
  cniConfig,
  containerdConfig,
  corefile,
  kubeDnsEndpointSlice,
  kubeDnsService,
  kubeletArgs,
  kubeletConfig,
  kubeProxyConfig,
  type NodePorts,
  nodeIdentities,
  nodeRbac,
} from './config.js';
import { ensurePauseImage } from './images.js';
import { maxUnixSocketPath, type NodeLayout, nodeLayout } from './layout.js';
import { configureNetworkNamespace, createCgroups, inNetns, joinCgroups } from './namespace.js';
import {
  cgroupRoot,
  cniNetworkName,
  fakeNodeTaint,
  realNodeNetwork as net,
  netnsName,
  netnsPath,
  realNodeName,
} from './network.js';
import { ensureNodePackages } from './packages.js';
import {
  type NodeRecord,
  prepareHost,
  readNodeRecord,
  teardownRealNode,
  writeNodeRecord,
} from './teardown.js';

/** What cluster.json records about the real node, for `status`, `down`, `loadImages` and tests. */
export interface RealNodeState {
  name: string;
  ip: string;
  /** `nsenter --net=<netnsPath> -- <command>` runs a command beside the node's pods. */
  netns: string;
  netnsPath: string;
  containerdSocket: string;
  ports: NodePorts;
  /** Ports joined from the host's 127.0.0.1 into the namespace (API server, health endpoints). */
  forwardedPorts: number[];
  /** The teardown record (see teardown.ts). */
  record: string;
}

export type RealNodeComponent = Extract<
  ComponentName,
  'port-forward' | 'port-forward-netns' | 'containerd' | 'kubelet' | 'kube-proxy' | 'coredns'
>;

interface NodeCommand {
  command: string[];
  /** Prefix that enters the namespace (absent: the process stays on the host). */
  launcher?: string[];
  /** Moved into the node's daemons cgroup, so teardown finds it and its children (containerd's shims). */
  inDaemonsCgroup: boolean;
}

export interface PreparedNode {
  state: RealNodeState;
  pauseImage: string;
  daemonCgroups: string[];
  apiserverKubeletClient: { cert: string; key: string };
  commands: Record<RealNodeComponent, NodeCommand>;
}

export interface PrepareInputs {
  cluster: ClusterLayout;
  cache: CacheLayout;
  pki: ClusterPki;
  /** The API server's URL, the same inside the namespace and on the host. */
  server: string;
  ports: NodePorts;
  /** Control-plane ports the host must reach (etcd, controller-manager and scheduler health). */
  controlPlanePorts: number[];
  progress: (line: string) => void;
}

/** The forwarder's built file, or its source when running from src/ under vitest (Node strips the types). */
function forwarderScript(): string {
  const built = fileURLToPath(new URL('./forwarder.js', import.meta.url));
  return existsSync(built) ? built : fileURLToPath(new URL('./forwarder.ts', import.meta.url));
}

function checkPrerequisites(layout: NodeLayout): void {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) {
    throw new Error('a real node needs Linux and root (network namespaces, cgroups, mounts)');
  }
  const longest = `${layout.containerdSocket}.ttrpc`;
  if (longest.length > maxUnixSocketPath) {
    throw new Error(
      `the cluster's folder is too deep for containerd's sockets (${longest.length} > ${maxUnixSocketPath} bytes): use a shorter cluster name or XDG_CACHE_HOME`,
    );
  }
}

/** Removes what a previous run of this cluster's node left behind (a crash, a kill -9). */
async function clearLeftovers(cluster: string, layout: NodeLayout, progress: (line: string) => void) {
  const previous = readNodeRecord(layout.record);
  if (previous) {
    const problems = teardownRealNode(previous);
    if (problems.length > 0) progress(`cleaning up the previous real node: ${problems.join('; ')}`);
  } else if (existsSync(netnsPath(cluster))) {
    await run(['ip', 'netns', 'delete', netnsName(cluster)]);
  }
}

/**
 * Everything the node needs before its processes start: packages, the pause image, the host's
 * kernel values, the network namespace, cgroups, certificates, kubeconfigs and configuration files.
 */
export async function prepareRealNode(inputs: PrepareInputs): Promise<PreparedNode> {
  const { cluster, cache, pki, ports, progress } = inputs;
  const layout = nodeLayout(cluster.root);
  checkPrerequisites(layout);
  await ensureNodePackages(progress);
  const pauseImage = await ensurePauseImage(cache);
  await clearLeftovers(cluster.name, layout, progress);

  const record: NodeRecord = {
    cluster: cluster.name,
    clusterRoot: cluster.root,
    netns: netnsName(cluster.name),
    cgroupRoot: cgroupRoot(cluster.name),
    cniNetwork: cniNetworkName(cluster.name),
    podLogs: layout.podLogs,
    containerdState: layout.containerdState,
    runtimeDirs: [
      layout.containerdState,
      layout.runcRoot,
      layout.kubeletRoot,
      layout.podLogs,
      layout.cniIpamDir,
      layout.forwardSockets,
      layout.containerdSocket,
      `${layout.containerdSocket}.ttrpc`,
    ],
    hostRecord: join(kubeEnvRoot(), 'real-node-host.json'),
    processes: [],
  };
  const forwardedPorts = [
    ...inputs.controlPlanePorts,
    ports.apiserver,
    ports.kubeProxyHealth,
    ports.corednsReady,
  ];
  const commands = nodeCommands(cluster, layout, cache, forwardedPorts);
  record.processes = Object.entries(commands).map(([component, { command }]) => ({
    pidFile: cluster.pidFile(component as RealNodeComponent),
    executable: command[0] ?? '',
  }));
  writeNodeRecord(layout.record, record);
  prepareHost(record);
  await configureNetworkNamespace(cluster.name);
  const daemonCgroups = createCgroups(record.cgroupRoot);

  for (const dir of [
    layout.containerdRoot,
    layout.containerdState,
    layout.registryConfig,
    layout.cniConfDir,
    layout.cniIpamDir,
    layout.kubeletRoot,
    layout.kubeletVolumePlugins,
    layout.podLogs,
    layout.forwardSockets,
  ]) {
    mkdirSync(dir, { recursive: true });
  }
  const ca = readFileSync(pki.caCert, 'utf8');
  const issue = (name: string, spec: Parameters<typeof ensureLeafCertificate>[3]) =>
    ensureLeafCertificate(pki, layout.pki, name, spec);
  const kubeconfigFor = (path: string, leaf: { cert: string; key: string }) =>
    writeKubeconfig(path, cluster.name, inputs.server, {
      ca,
      cert: readFileSync(leaf.cert, 'utf8'),
      key: readFileSync(leaf.key, 'utf8'),
    });
  kubeconfigFor(
    layout.kubeletKubeconfig,
    issue('kubelet-client', { subject: nodeIdentities.kubelet, usage: 'clientAuth' }),
  );
  kubeconfigFor(
    layout.kubeProxyKubeconfig,
    issue('kube-proxy', { subject: nodeIdentities.kubeProxy, usage: 'clientAuth' }),
  );
  kubeconfigFor(
    layout.corednsKubeconfig,
    issue('coredns', { subject: nodeIdentities.coredns, usage: 'clientAuth' }),
  );
  const serving = issue('kubelet-serving', {
    subject: { commonName: realNodeName },
    usage: 'serverAuth',
    dnsNames: [realNodeName],
    ipAddresses: [net.nodeIp],
  });
  const apiserverKubeletClient = issue('apiserver-kubelet-client', {
    subject: nodeIdentities.apiserverKubeletClient,
    usage: 'clientAuth',
  });

  writeFileSync(layout.containerdConfig, containerdConfig(layout));
  writeFileSync(join(layout.cniConfDir, '10-kube-env.conflist'), cniConfig(layout, cluster.name));
  writeFileSync(
    layout.kubeletConfig,
    kubeletConfig(layout, cluster.name, {
      caCert: pki.caCert,
      servingCert: serving.cert,
      servingKey: serving.key,
    }),
  );
  writeFileSync(layout.kubeProxyConfig, kubeProxyConfig(layout, ports));
  writeFileSync(layout.corefile, corefile(layout, ports));
  // Pods with dnsPolicy Default get this: no upstream resolvers, since nothing leaves the namespace.
  writeFileSync(layout.resolvConf, '# kube-env real node: no upstream resolvers (no route out)\n');

  return {
    state: {
      name: realNodeName,
      ip: net.nodeIp,
      netns: netnsName(cluster.name),
      netnsPath: netnsPath(cluster.name),
      containerdSocket: layout.containerdSocket,
      ports,
      forwardedPorts,
      record: layout.record,
    },
    pauseImage,
    daemonCgroups,
    apiserverKubeletClient,
    commands,
  };
}

function nodeCommands(
  cluster: ClusterLayout,
  layout: NodeLayout,
  cache: CacheLayout,
  forwardedPorts: number[],
): Record<RealNodeComponent, NodeCommand> {
  const launcher = inNetns(cluster.name, []);
  const bin = (name: string) => join(cache.bin, name);
  const forwarder = (mode: 'host' | 'netns') => [
    process.execPath,
    forwarderScript(),
    mode,
    layout.forwardSockets,
    ...forwardedPorts.map(String),
  ];
  return {
    'port-forward': { command: forwarder('host'), inDaemonsCgroup: false },
    'port-forward-netns': { command: forwarder('netns'), launcher, inDaemonsCgroup: true },
    containerd: {
      command: ['/usr/bin/containerd', '--config', layout.containerdConfig],
      launcher,
      inDaemonsCgroup: true,
    },
    kubelet: { command: [bin('kubelet'), ...kubeletArgs(layout)], launcher, inDaemonsCgroup: true },
    'kube-proxy': {
      command: [bin('kube-proxy'), `--config=${layout.kubeProxyConfig}`, '--v=1'],
      launcher,
      inDaemonsCgroup: true,
    },
    coredns: { command: [bin('coredns'), '-conf', layout.corefile], launcher, inDaemonsCgroup: true },
  };
}

export { joinCgroups as joinDaemonsCgroup };

const applyQuery = '?fieldManager=kube-env&force=true';

/** Server-side apply of one object (idempotent: a restart with kept data applies the same again). */
async function apply(
  server: string,
  tls: TlsClient,
  path: string,
  body: Record<string, unknown>,
): Promise<void> {
  const res = await httpRequest(`${server}${path}${applyQuery}`, {
    method: 'PATCH',
    body,
    contentType: 'application/apply-patch+yaml',
    tls,
    timeoutMs: 10_000,
  });
  if (res.status !== 200 && res.status !== 201) {
    throw new Error(`applying ${path} failed: HTTP ${res.status} ${res.body}`);
  }
}

/** RBAC for the node's identities and the kube-dns Service with CoreDNS's endpoint. */
export async function applyRealNodeObjects(server: string, tls: TlsClient): Promise<void> {
  for (const object of nodeRbac()) {
    const plural = object.kind === 'ClusterRole' ? 'clusterroles' : 'clusterrolebindings';
    const name = (object.metadata as { name: string }).name;
    await apply(
      server,
      tls,
      `/apis/rbac.authorization.k8s.io/v1/${plural}/${encodeURIComponent(name)}`,
      object,
    );
  }
  await apply(server, tls, '/api/v1/namespaces/kube-system/services/kube-dns', kubeDnsService());
  await apply(
    server,
    tls,
    '/apis/discovery.k8s.io/v1/namespaces/kube-system/endpointslices/kube-dns-real-node',
    kubeDnsEndpointSlice(),
  );
}

/**
 * With a real node, kwok's nodes carry a NoSchedule taint, so that pods without a toleration (chart
 * workloads, what operators create) land on the real node; without one, the taint is removed.
 */
export async function setFakeNodeTaints(server: string, tls: TlsClient, tainted: boolean): Promise<void> {
  const res = await httpRequest(`${server}/api/v1/nodes?labelSelector=type%3Dkwok`, {
    tls,
    timeoutMs: 10_000,
  });
  if (res.status !== 200) throw new Error(`listing kwok nodes failed: HTTP ${res.status} ${res.body}`);
  const nodes = (JSON.parse(res.body) as { items: Array<{ metadata: { name: string } }> }).items;
  for (const node of nodes) {
    const res = await httpRequest(
      `${server}/api/v1/nodes/${encodeURIComponent(node.metadata.name)}?fieldManager=kube-env-taints&force=true`,
      {
        method: 'PATCH',
        body: {
          apiVersion: 'v1',
          kind: 'Node',
          metadata: { name: node.metadata.name },
          spec: { taints: tainted ? [fakeNodeTaint] : [] },
        },
        contentType: 'application/apply-patch+yaml',
        tls,
        timeoutMs: 10_000,
      },
    );
    if (res.status !== 200)
      throw new Error(`tainting ${node.metadata.name} failed: HTTP ${res.status} ${res.body}`);
  }
}

/** Deletes the real node's Node object (its pods are then garbage-collected); absent is fine. */
export async function deleteRealNodeObject(server: string, tls: TlsClient): Promise<void> {
  const res = await httpRequest(`${server}/api/v1/nodes/${realNodeName}`, {
    method: 'DELETE',
    tls,
    timeoutMs: 5000,
  });
  if (res.status !== 200 && res.status !== 404) {
    throw new Error(`deleting node ${realNodeName} failed: HTTP ${res.status} ${res.body}`);
  }
}

export function containerdReady(socket: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = connect(socket);
    probe.once('connect', () => {
      probe.destroy();
      resolve(true);
    });
    probe.once('error', () => resolve(false));
  });
}

/** The taints the node lifecycle controller keeps on a node until it has seen it Ready. */
const NOT_READY_TAINTS = new Set(['node.kubernetes.io/not-ready', 'node.kubernetes.io/unreachable']);

/**
 * The real node is Ready and the node lifecycle controller has taken its not-ready taint off (a
 * few seconds later, on its own period): before that no pod without a toleration lands on it.
 */
export async function realNodeReady(server: string, tls: TlsClient): Promise<boolean> {
  try {
    const res = await httpRequest(`${server}/api/v1/nodes/${realNodeName}`, { tls, timeoutMs: 2000 });
    if (res.status !== 200) return false;
    return nodeReadyForPods(JSON.parse(res.body) as NodeReadiness);
  } catch {
    return false;
  }
}

interface NodeReadiness {
  spec?: { taints?: Array<{ key: string }> };
  status?: { conditions?: Array<{ type: string; status: string }> };
}

export function nodeReadyForPods(node: NodeReadiness): boolean {
  const ready = node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
  return ready && !(node.spec?.taints ?? []).some((t) => NOT_READY_TAINTS.has(t.key));
}

/** kube-proxy's /healthz and CoreDNS's /ready answer 200 once they have synced with the API server. */
export async function localHttpOk(port: number, path: string): Promise<boolean> {
  try {
    return (await httpRequest(`http://127.0.0.1:${port}${path}`, { timeoutMs: 2000 })).status === 200;
  } catch {
    return false;
  }
}
