import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { httpRequest, type TlsClient } from '../cluster/http.js';
import { writeKubeconfig } from '../cluster/kubeconfig.js';
import { type ClusterLayout, type ComponentName, type NodeDaemon, nodeComponent } from '../cluster/layout.js';
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
  kubeletIdentity,
  kubeProxyConfig,
  type NodePorts,
  nodeIdentities,
  nodeRbac,
} from './config.js';
import { ensurePauseImage } from './images.js';
import { maxUnixSocketPath, type NodeLayout, nodeLayout } from './layout.js';
import {
  configureNodesNetwork,
  createCgroups,
  createNodeMountNamespace,
  inNode,
  joinCgroups,
} from './namespace.js';
import {
  cgroupRoot,
  fakeNodeTaint,
  maxRealNodes,
  type RealNodeSpec,
  realNodeLabels,
  realNodeName,
  realNodeSpec,
} from './network.js';
import { configureNodeLinks } from './node-links.js';
import { configureOvsLinks, ensureOvs, type OvsInstall, startNodeOvs } from './ovs.js';
import { ensureNodePackages } from './packages.js';
import {
  type NodeRecord,
  prepareHost,
  readNodeRecord,
  teardownRealNode,
  writeNodeRecord,
} from './teardown.js';

/** What cluster.json records about a real node, for `status`, `down`, `loadImages` and tests. */
export interface RealNodeState {
  name: string;
  /** 1 for the first node (beside the control plane), then 2, 3, … */
  index: number;
  ip: string;
  /** `nsenter --net=<netnsPath> -- <command>` runs a command beside the node's pods. */
  netns: string;
  netnsPath: string;
  /**
   * The node's pinned mount namespace: `nsenter --mount=<this> --net=<netnsPath> -- <command>`
   * sees what its containerd and kubelet see (/etc/cni/net.d, /var/lib/kubelet, …).
   */
  mountNamespace: string;
  /** The node's own folders that its mount namespace binds over the standard host paths. */
  hostRoot: string;
  containerdSocket: string;
  ports: NodePorts;
  /** Ports joined from the host's 127.0.0.1 into the first node's namespace (API server, health endpoints). */
  forwardedPorts: number[];
  /** The teardown record (see teardown.ts), one for all of a cluster's nodes. */
  record: string;
}

interface NodeCommand {
  command: string[];
  /** Prefix that enters the namespaces (absent: the process stays on the host). */
  launcher?: string[];
  /** Moved into the node's daemons cgroup, so teardown finds it and its children (containerd's shims). */
  inDaemonsCgroup: boolean;
}

export interface PreparedNode {
  state: RealNodeState;
  daemonCgroups: string[];
  /** This node's processes by component name (the first node's include the forwarders and CoreDNS). */
  commands: Partial<Record<ComponentName, NodeCommand>>;
  /** The names of its containerd, kubelet and kube-proxy components. */
  daemons: Record<NodeDaemon, ComponentName>;
}

export interface PreparedNodes {
  nodes: PreparedNode[];
  /** The Open vSwitch the nodes run, with `ovs`. */
  ovs?: OvsInstall;
  pauseImage: string;
  apiserverKubeletClient: { cert: string; key: string };
}

export interface PrepareInputs {
  cluster: ClusterLayout;
  cache: CacheLayout;
  pki: ClusterPki;
  /** The API server's URL, the same inside the first node's namespace and on the host. */
  server: string;
  ports: NodePorts;
  /** Control-plane ports the host must reach (etcd, controller-manager and scheduler health). */
  controlPlanePorts: number[];
  /** How many real nodes (1 to maxRealNodes). */
  count: number;
  /** Run Open vSwitch on every node (see ovs.ts). */
  ovs: boolean;
  progress: (line: string) => void;
}

/** The forwarder's built file, or its source when running from src/ under vitest (Node strips the types). */
function forwarderScript(): string {
  const built = fileURLToPath(new URL('./forwarder.js', import.meta.url));
  return existsSync(built) ? built : fileURLToPath(new URL('./forwarder.ts', import.meta.url));
}

function checkPrerequisites(layouts: readonly NodeLayout[]): void {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) {
    throw new Error('a real node needs Linux and root (network and mount namespaces, cgroups, mounts)');
  }
  for (const layout of layouts) {
    const longest = `${layout.containerdSocket}.ttrpc`;
    if (longest.length > maxUnixSocketPath) {
      throw new Error(
        `the cluster's folder is too deep for containerd's sockets (${longest.length} > ${maxUnixSocketPath} bytes): use a shorter cluster name or XDG_CACHE_HOME`,
      );
    }
  }
}

/** Removes what a previous run of this cluster's nodes left behind (a crash, a kill -9). */
async function clearLeftovers(
  specs: readonly RealNodeSpec[],
  layout: NodeLayout,
  progress: (line: string) => void,
) {
  const previous = readNodeRecord(layout.record);
  if (previous) {
    const problems = teardownRealNode(previous);
    if (problems.length > 0) progress(`cleaning up the previous real node: ${problems.join('; ')}`);
  }
  for (const spec of specs) {
    if (existsSync(`/run/netns/${spec.netns}`)) await run(['ip', 'netns', 'delete', spec.netns]);
  }
}

/**
 * Everything the nodes need before their processes start: packages, the pause image, the host's
 * kernel values, the network namespaces and their links, each node's mount namespace, cgroups,
 * certificates, kubeconfigs and configuration files.
 */
export async function prepareRealNodes(inputs: PrepareInputs): Promise<PreparedNodes> {
  const { cluster, cache, pki, ports, progress } = inputs;
  if (!Number.isInteger(inputs.count) || inputs.count < 1 || inputs.count > maxRealNodes)
    throw new Error(`--real-nodes must be an integer from 1 to ${maxRealNodes}, got ${inputs.count}`);
  const specs = Array.from({ length: inputs.count }, (_, i) => realNodeSpec(cluster.name, i + 1));
  const layouts = specs.map((spec) => nodeLayout(cluster.root, spec.index));
  const [first, firstLayout] = [specs[0] as RealNodeSpec, layouts[0] as NodeLayout];
  checkPrerequisites(layouts);
  await ensureNodePackages(progress);
  const pauseImage = await ensurePauseImage(cache);
  const ovs = inputs.ovs ? await ensureOvs(progress) : undefined;
  await clearLeftovers(specs, firstLayout, progress);

  const forwardedPorts = [
    ...inputs.controlPlanePorts,
    ports.apiserver,
    ports.kubeProxyHealth,
    ports.corednsReady,
  ];
  const commands = specs.map((spec, i) =>
    nodeCommands(spec, layouts[i] as NodeLayout, cache, forwardedPorts),
  );
  const record: NodeRecord = {
    cluster: cluster.name,
    clusterRoot: cluster.root,
    netns: first.netns,
    nodeNetns: specs.map((s) => s.netns),
    mountNamespaces: layouts.map((l) => l.mountNamespace),
    cgroupRoot: cgroupRoot(cluster.name),
    runtimeDirs: [
      ...layouts.flatMap((l) => [
        l.containerdState,
        l.runcRoot,
        l.hostRoot,
        l.podLogs,
        l.containerdSocket,
        `${l.containerdSocket}.ttrpc`,
      ]),
      firstLayout.forwardSockets,
    ],
    hostRecord: join(kubeEnvRoot(), 'real-node-host.json'),
    processes: commands.flatMap((c) =>
      Object.entries(c).map(([component, spec]) => ({
        pidFile: cluster.pidFile(component as ComponentName),
        executable: spec?.command[0] ?? '',
      })),
    ),
  };
  writeNodeRecord(firstLayout.record, record);
  prepareHost(record);
  await configureNodesNetwork(specs);
  await configureNodeLinks(specs);

  const ca = readFileSync(pki.caCert, 'utf8');
  const firstIssue = (name: string, spec: Parameters<typeof ensureLeafCertificate>[3]) =>
    ensureLeafCertificate(pki, firstLayout.pki, name, spec);
  const apiserverKubeletClient = firstIssue('apiserver-kubelet-client', {
    subject: nodeIdentities.apiserverKubeletClient,
    usage: 'clientAuth',
  });
  const nodes: PreparedNode[] = [];
  for (const [i, spec] of specs.entries()) {
    const layout = layouts[i] as NodeLayout;
    const daemonCgroups = createCgroups(spec.cgroupRoot);
    for (const dir of [
      layout.containerdRoot,
      layout.containerdState,
      layout.registryConfig,
      layout.kubeletVolumePlugins,
      layout.podLogs,
      layout.pki,
      ...(i === 0 ? [layout.forwardSockets] : []),
    ]) {
      mkdirSync(dir, { recursive: true });
    }
    await createNodeMountNamespace(cluster.root, layout);
    const issue = (name: string, leaf: Parameters<typeof ensureLeafCertificate>[3]) =>
      ensureLeafCertificate(pki, layout.pki, name, leaf);
    // The first node reaches the API server on its own loopback (as the host does); the others at
    // the first node's IP, checking the certificate against the name it carries.
    const server = i === 0 ? inputs.server : `https://${first.ip}:${ports.apiserver}`;
    const kubeconfigFor = (path: string, leaf: { cert: string; key: string }) =>
      writeKubeconfig(
        path,
        cluster.name,
        server,
        { ca, cert: readFileSync(leaf.cert, 'utf8'), key: readFileSync(leaf.key, 'utf8') },
        i === 0 ? undefined : 'kubernetes',
      );
    kubeconfigFor(
      layout.kubeletKubeconfig,
      issue('kubelet-client', { subject: kubeletIdentity(spec.name), usage: 'clientAuth' }),
    );
    kubeconfigFor(
      layout.kubeProxyKubeconfig,
      issue('kube-proxy', { subject: nodeIdentities.kubeProxy, usage: 'clientAuth' }),
    );
    const serving = issue('kubelet-serving', {
      subject: { commonName: spec.name },
      usage: 'serverAuth',
      dnsNames: [spec.name],
      ipAddresses: [spec.ip],
    });
    writeFileSync(layout.containerdConfig, containerdConfig(layout));
    writeFileSync(join(layout.cniConfDir, '10-kube-env.conflist'), cniConfig(cluster.name, spec));
    writeFileSync(
      layout.kubeletConfig,
      kubeletConfig(
        layout,
        cluster.name,
        { caCert: pki.caCert, servingCert: serving.cert, servingKey: serving.key },
        spec,
      ),
    );
    writeFileSync(layout.kubeProxyConfig, kubeProxyConfig(layout, ports, spec));
    // Pods with dnsPolicy Default get this: no upstream resolvers, since nothing leaves the namespaces.
    writeFileSync(layout.resolvConf, '# kube-env real node: no upstream resolvers (no route out)\n');
    if (i === 0) {
      kubeconfigFor(
        layout.corednsKubeconfig,
        issue('coredns', { subject: nodeIdentities.coredns, usage: 'clientAuth' }),
      );
      writeFileSync(layout.corefile, corefile(layout, ports));
    }
    nodes.push({
      state: {
        name: spec.name,
        index: spec.index,
        ip: spec.ip,
        netns: spec.netns,
        netnsPath: `/run/netns/${spec.netns}`,
        mountNamespace: layout.mountNamespace,
        hostRoot: layout.hostRoot,
        containerdSocket: layout.containerdSocket,
        ports,
        forwardedPorts,
        record: firstLayout.record,
      },
      daemonCgroups,
      commands: commands[i] ?? {},
      daemons: {
        containerd: nodeComponent('containerd', spec.index),
        kubelet: nodeComponent('kubelet', spec.index),
        'kube-proxy': nodeComponent('kube-proxy', spec.index),
      },
    });
  }
  if (ovs) {
    const started = Date.now();
    await configureOvsLinks(specs);
    await Promise.all(
      nodes.map((node, i) =>
        startNodeOvs(
          specs[i] as RealNodeSpec,
          layouts[i] as NodeLayout,
          ovs,
          node.daemonCgroups,
          dirname(cluster.logFile('etcd')),
        ),
      ),
    );
    progress(`  Open vSwitch ${ovs.version} up on ${nodes.length} node(s) in ${Date.now() - started} ms`);
  }
  return { nodes, pauseImage, apiserverKubeletClient, ...(ovs ? { ovs } : {}) };
}

function nodeCommands(
  spec: RealNodeSpec,
  layout: NodeLayout,
  cache: CacheLayout,
  forwardedPorts: number[],
): Partial<Record<ComponentName, NodeCommand>> {
  const netnsPath = `/run/netns/${spec.netns}`;
  const netLauncher = ['nsenter', `--net=${netnsPath}`, '--'];
  // containerd and kubelet share the node's mount namespace (kubelet mounts volumes that runc binds).
  const hostLauncher = inNode({ netnsPath, mountNamespace: layout.mountNamespace }, []);
  const bin = (name: string) => join(cache.bin, name);
  const daemons: Partial<Record<ComponentName, NodeCommand>> = {
    [nodeComponent('containerd', spec.index)]: {
      command: ['/usr/bin/containerd', '--config', layout.containerdConfig],
      launcher: hostLauncher,
      inDaemonsCgroup: true,
    },
    [nodeComponent('kubelet', spec.index)]: {
      command: [bin('kubelet'), ...kubeletArgs(layout, spec)],
      launcher: hostLauncher,
      inDaemonsCgroup: true,
    },
    [nodeComponent('kube-proxy', spec.index)]: {
      command: [bin('kube-proxy'), `--config=${layout.kubeProxyConfig}`, '--v=1'],
      launcher: netLauncher,
      inDaemonsCgroup: true,
    },
  };
  if (spec.index !== 1) return daemons;
  const forwarder = (mode: 'host' | 'netns') => [
    process.execPath,
    forwarderScript(),
    mode,
    layout.forwardSockets,
    ...forwardedPorts.map(String),
  ];
  return {
    'port-forward': { command: forwarder('host'), inDaemonsCgroup: false },
    'port-forward-netns': { command: forwarder('netns'), launcher: netLauncher, inDaemonsCgroup: true },
    ...daemons,
    coredns: {
      command: [bin('coredns'), '-conf', layout.corefile],
      launcher: netLauncher,
      inDaemonsCgroup: true,
    },
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

/**
 * Deletes the Node objects of real nodes (label type=real) not named in `keep` (their pods are
 * then garbage-collected), so a restart with fewer nodes, or without any, shows no dead node.
 */
export async function deleteRealNodeObjects(
  server: string,
  tls: TlsClient,
  keep: readonly string[] = [],
): Promise<void> {
  const selector = encodeURIComponent(
    Object.entries(realNodeLabels)
      .map(([k, v]) => `${k}=${v}`)
      .join(','),
  );
  const res = await httpRequest(`${server}/api/v1/nodes?labelSelector=${selector}`, { tls, timeoutMs: 5000 });
  if (res.status !== 200) throw new Error(`listing real nodes failed: HTTP ${res.status} ${res.body}`);
  const names = (JSON.parse(res.body) as { items: Array<{ metadata: { name: string } }> }).items
    .map((n) => n.metadata.name)
    .filter((n) => !keep.includes(n));
  for (const name of names) {
    const del = await httpRequest(`${server}/api/v1/nodes/${encodeURIComponent(name)}`, {
      method: 'DELETE',
      tls,
      timeoutMs: 5000,
    });
    if (del.status !== 200 && del.status !== 404) {
      throw new Error(`deleting node ${name} failed: HTTP ${del.status} ${del.body}`);
    }
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
export async function realNodeReady(server: string, tls: TlsClient, name = realNodeName): Promise<boolean> {
  try {
    const res = await httpRequest(`${server}/api/v1/nodes/${encodeURIComponent(name)}`, {
      tls,
      timeoutMs: 2000,
    });
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

/** The same, for an endpoint on 127.0.0.1 inside a node's network namespace (a further node's kube-proxy). */
export async function httpOkInNetns(netnsPath: string, port: number, path: string): Promise<boolean> {
  const script = `require('http').get('http://127.0.0.1:${port}${path}', (r) => process.exit(r.statusCode === 200 ? 0 : 1)).on('error', () => process.exit(1))`;
  try {
    await run(['nsenter', `--net=${netnsPath}`, '--', process.execPath, '-e', script]);
    return true;
  } catch {
    return false;
  }
}
