import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ensureBinaries } from '../build/build.js';
import { importImages } from '../node/images.js';
import { nodeLayout } from '../node/layout.js';
import { inNetns } from '../node/namespace.js';
import { maxRealNodes } from '../node/network.js';
import {
  applyRealNodeObjects,
  containerdReady,
  deleteRealNodeObjects,
  httpOkInNetns,
  joinDaemonsCgroup,
  localHttpOk,
  type PreparedNode,
  type PreparedNodes,
  prepareRealNodes,
  realNodeReady,
  setFakeNodeTaints,
} from '../node/real-node.js';
import { readNodeRecord, teardownRealNode } from '../node/teardown.js';
import { type CacheLayout, clustersDir } from '../paths.js';
import { ensureClusterPki, pkiPaths, readClientCredentials } from '../pki/cluster-pki.js';
import { formatDuration } from '../util/format.js';
import { acquireLock } from '../util/lock.js';
import { isAlive } from '../util/process-alive.js';
import { cacheKey, kwokStages } from '../versions.js';
import { ownCluster, releaseCluster } from './cleanup.js';
import { auditPolicy, componentCommands, kwokConfiguration, type Ports } from './commands.js';
import { ComponentStartError } from './errors.js';
import type { TlsClient } from './http.js';
import { writeKubeconfig } from './kubeconfig.js';
import {
  type ClusterLayout,
  type ComponentName,
  clusterComponents,
  clusterLayout,
  controlPlaneComponents,
  nodeComponent,
  nodeDaemons,
} from './layout.js';
import { freePorts } from './ports.js';
import {
  apiserverReady,
  componentHealthy,
  createFakeNodes,
  defaultServiceAccountExists,
  etcdHealthy,
  nodesReady,
} from './probes.js';
import { readPid, runsExecutable, type StartedProcess, startProcess, stopProcess } from './processes.js';
import { type ClusterState, readState, realNodeCount, writeState } from './state.js';

export const defaultClusterName = 'stackops-dev';
export const defaultNodeCount = 3;

export interface StartOptions {
  /** Cluster name; its state lives in clusters/<name>/ (default `stackops-dev`). */
  name?: string;
  /** Number of fake (kwok) nodes (default 3; may be 0 with a real node). */
  nodes?: number;
  /**
   * Add one real node (kubelet, containerd, kube-proxy, CoreDNS) in a network namespace with no
   * route out; the control plane then runs in that namespace too, reached from the host's 127.0.0.1
   * through a port forwarder. kwok's nodes get a NoSchedule taint. Needs root (see README).
   */
  realNode?: boolean;
  /**
   * How many real nodes (default: 1 with `realNode`, else 0), each a host of its own: its own
   * network namespace and IP on a bridge, mount namespace, containerd, kubelet, kube-proxy and pod
   * subnet (see README). The first also holds the control plane and CoreDNS.
   */
  realNodes?: number;
  /**
   * How long (seconds) a node may miss its heartbeats before the controller-manager marks it
   * NotReady (default 300: generous on a busy machine). A test that loses a node asks for less.
   * Asked for, a running cluster is reused only if it was started with the same value.
   */
  nodeMonitorGracePeriodSeconds?: number;
  /**
   * Run Open vSwitch (ovsdb-server, ovs-vswitchd, userspace datapath) on every real node, with a
   * bridge `br1` whose uplinks join the nodes (see README). Asked for, a running cluster is reused
   * only if it runs OVS too (else it is restarted with its data kept).
   */
  ovs?: boolean;
  /** Image archives (docker or OCI tar) or OCI layout folders to load into every real node. */
  images?: readonly string[];
  /**
   * Have the API server write an audit log of every request (metadata level, JSON lines) to this
   * path. Asked for, a running cluster is reused only if it writes this same log (else it is
   * restarted with its data kept); not asked for, whatever the running cluster does is fine.
   */
  auditLog?: string;
  /**
   * Have the API server call admission webhooks (Mutating/ValidatingAdmissionWebhook), which it
   * otherwise does not. Asked for, a running cluster is reused only if it calls them too (else it
   * is restarted with its data kept); not asked for, either is fine.
   */
  admissionWebhooks?: boolean;
  /** Start from an empty etcd (and a new PKI); otherwise existing data is kept. */
  fresh?: boolean;
  /** When the named cluster is already running and healthy, use it instead of failing. */
  reuse?: boolean;
  /**
   * Leave the processes running after this Node process exits (what `kube-env up` does). Without
   * it they are killed on exit, SIGINT, SIGTERM and SIGHUP.
   */
  detach?: boolean;
  /** Delete the whole state directory on stop (a private, throw-away cluster). */
  ephemeral?: boolean;
  /** Overall limit for the start, after the binaries are available (default 120 s). */
  timeoutMs?: number;
  /** Progress lines (default: none). Build progress always goes to stderr. */
  progress?: (line: string) => void;
}

export interface ClusterHandle {
  readonly name: string;
  readonly layout: ClusterLayout;
  readonly state: ClusterState;
  readonly kubeconfigPath: string;
  /** `https://127.0.0.1:<port>` */
  readonly server: string;
  /** Where kubectl and helm for this cluster are. */
  readonly binDir: string;
  /** The first real node, when the cluster has one. */
  readonly realNode: ClusterState['realNode'];
  /** Every real node (empty without). */
  readonly realNodes: NonNullable<ClusterState['realNodes']>;
  /** True when an already running cluster was reused rather than started. */
  readonly reused: boolean;
  /** Time from the call to all-ready (0 when reused). */
  readonly startupMs: number;
  /** Stops every component; `purge` also deletes the state directory (default: as `ephemeral`). */
  stop(options?: { purge?: boolean }): Promise<void>;
}

/** Starts (or reuses) a control plane: the shared implementation behind `kube-env up` and the TS API. */
export async function startCluster(options: StartOptions = {}): Promise<ClusterHandle> {
  const started = Date.now();
  const name = options.name ?? defaultClusterName;
  const layout = clusterLayout(name);
  const nodes = options.nodes ?? defaultNodeCount;
  const realNodes = wantedRealNodes(options);
  const minimumNodes = realNodes > 0 ? 0 : 1;
  if (!Number.isInteger(nodes) || nodes < minimumNodes)
    throw new Error(`--nodes must be an integer >= ${minimumNodes}, got ${nodes}`);
  if (options.images?.length && realNodes === 0)
    throw new Error('images can only be loaded into a real node (realNode: true / --real-node)');
  if (options.ovs && realNodes === 0)
    throw new Error('ovs runs on real nodes: ask for one (realNode: true / --real-node)');
  const progress = options.progress ?? (() => {});
  const { layout: cache } = await ensureBinaries();

  mkdirSync(dirname(layout.lock), { recursive: true });
  const lock = await acquireLock(layout.lock, {
    onWait: (pid) =>
      progress(`waiting for another kube-env process (pid ${pid}) that is changing cluster ${name}`),
  });
  try {
    const running = runningComponents(layout);
    if (running.length > 0) {
      const state = readState(layout);
      if (
        options.reuse &&
        !options.fresh &&
        state &&
        realNodeCount(state) >= realNodes &&
        (options.auditLog === undefined || state.auditLog === resolve(options.auditLog)) &&
        (options.nodeMonitorGracePeriodSeconds === undefined ||
          state.nodeMonitorGracePeriodSeconds === options.nodeMonitorGracePeriodSeconds) &&
        (!options.admissionWebhooks || state.admissionWebhooks === true) &&
        (!options.ovs || state.ovs !== undefined) &&
        expectedComponents(state).every((c) => running.includes(c)) &&
        (await apiserverReady(state.server, readClientCredentials(pkiPaths(layout.pki))))
      ) {
        progress(`cluster ${name} is already running at ${state.server}; reusing it`);
        const images = options.images ?? [];
        if (images.length > 0 && realNodeCount(state) > 0) {
          progress(`loading ${images.length} image(s) into the real node(s)`);
          await Promise.all(
            (state.realNodes ?? (state.realNode ? [state.realNode] : [])).map((n) =>
              importImages(n.containerdSocket, images),
            ),
          );
        }
        return makeHandle(layout, state, {
          reused: true,
          startupMs: 0,
          ephemeral: options.ephemeral ?? false,
        });
      }
      if (!options.fresh && !options.reuse) {
        throw new Error(
          `cluster "${name}" is already running (${running.join(', ')}); stop it with \`kube-env down --name ${name}\` or ask to reuse it`,
        );
      }
      progress(`stopping the running components of cluster ${name} (${running.join(', ')})`);
      const problems = await stopComponents(layout);
      if (problems.length > 0)
        progress(`the previous real node left something behind: ${problems.join('; ')}`);
    }
    if (options.fresh) rmSync(layout.root, { recursive: true, force: true });

    const stageFiles = kwokStages.map((stage) => join(cache.stages, basename(stage)));
    for (let attempt = 1; ; attempt++) {
      try {
        const state = await boot(layout, {
          binDir: cache.bin,
          cache,
          stageFiles,
          nodes,
          realNodes,
          options,
          started,
          progress,
        });
        return makeHandle(layout, state, {
          reused: false,
          startupMs: Date.now() - started,
          ephemeral: options.ephemeral ?? false,
        });
      } catch (error) {
        // Ports are picked free, but another process may take one before our component binds it.
        if (attempt < 3 && /address already in use/.test(String((error as Error).message))) {
          progress(
            `a port was taken meanwhile (${(error as ComponentStartError).component}); retrying with new ports`,
          );
          continue;
        }
        throw error;
      }
    }
  } finally {
    lock.release();
  }
}

interface BootInputs {
  binDir: string;
  cache: CacheLayout;
  stageFiles: string[];
  nodes: number;
  realNodes: number;
  options: StartOptions;
  started: number;
  progress: (line: string) => void;
}

/**
 * etcd → kube-apiserver → (controller-manager, scheduler, kwok, nodes) → all ready. With a real
 * node, its namespace, host changes and configuration come first, every control-plane component
 * runs in the namespace, and containerd → (kubelet, kube-proxy, CoreDNS) start beside the rest.
 */
async function boot(layout: ClusterLayout, inputs: BootInputs): Promise<ClusterState> {
  const { options, progress } = inputs;
  for (const dir of [layout.root, dirname(layout.logFile('etcd')), dirname(layout.pidFile('etcd'))]) {
    mkdirSync(dir, { recursive: true });
  }
  const pki = ensureClusterPki(layout.pki);
  const tls = readClientCredentials(pki);
  const [
    etcdClient = 0,
    etcdPeer = 0,
    apiserver = 0,
    controllerManager = 0,
    scheduler = 0,
    kubeProxyHealth = 0,
    kubeProxyMetrics = 0,
    corednsHealth = 0,
    corednsReady = 0,
  ] = await freePorts(inputs.realNodes > 0 ? 9 : 5);
  const ports: Ports = { etcdClient, etcdPeer, apiserver, controllerManager, scheduler };
  const server = `https://127.0.0.1:${apiserver}`;
  writeKubeconfig(layout.kubeconfig, layout.name, server, tls);
  writeFileSync(layout.kwokConfig, kwokConfiguration());
  const audit = options.auditLog
    ? { policyFile: join(layout.root, 'audit-policy.yaml'), logFile: resolve(options.auditLog) }
    : undefined;
  if (audit) {
    writeFileSync(audit.policyFile, auditPolicy());
    mkdirSync(dirname(audit.logFile), { recursive: true });
  }
  const state: ClusterState = {
    name: layout.name,
    cacheKey: cacheKey(),
    binDir: inputs.binDir,
    server,
    ports,
    nodes: inputs.nodes,
    startedAt: new Date().toISOString(),
    components: {},
    ...(audit ? { auditLog: audit.logFile } : {}),
    ...(options.admissionWebhooks ? { admissionWebhooks: true } : {}),
    ...(options.nodeMonitorGracePeriodSeconds
      ? { nodeMonitorGracePeriodSeconds: options.nodeMonitorGracePeriodSeconds }
      : {}),
  };

  // Tracked for cleanup from the first process on, so Ctrl-C during `up` leaves nothing behind.
  const ownedPids = ownCluster({
    name: layout.name,
    root: layout.root,
    binDir: inputs.binDir,
    purge: (options.ephemeral ?? false) && !options.detach,
  });
  const processes: StartedProcess[] = [];
  let prepared: PreparedNodes | undefined;
  const launch = (component: ComponentName, command: string[], launcher?: string[], cgroups?: string[]) => {
    const proc = startProcess({
      name: component,
      command,
      launcher,
      onSpawn: cgroups ? (pid) => joinDaemonsCgroup(pid, cgroups) : undefined,
      logFile: layout.logFile(component),
      pidFile: layout.pidFile(component),
      cwd: layout.root,
    });
    processes.push(proc);
    ownedPids.push(proc.pid);
    state.components[component] = { pid: proc.pid, command, ...(launcher ? { launcher } : {}) };
    writeState(layout, state);
    return proc;
  };
  // Moved on by the time images take to load (their size, not the start, decides that).
  const deadline = { at: Date.now() + (options.timeoutMs ?? 120_000) };
  const abort = new AbortController();
  const waitFor = (proc: StartedProcess, what: string, probe: () => Promise<boolean>) =>
    waitUntil({ proc, what, probe, processes, deadline, signal: abort.signal }).then(() =>
      progress(`  ${what}: ready after ${formatDuration(Date.now() - inputs.started)}`),
    );

  try {
    if (inputs.realNodes > 0) {
      progress(
        `  preparing ${inputs.realNodes} real node(s) (packages, pause image, namespaces, cgroups, certificates)`,
      );
      prepared = await prepareRealNodes({
        cluster: layout,
        cache: inputs.cache,
        pki,
        server,
        ports: { apiserver, kubeProxyHealth, kubeProxyMetrics, corednsHealth, corednsReady },
        controlPlanePorts: [etcdClient, controllerManager, scheduler],
        count: inputs.realNodes,
        ovs: options.ovs ?? false,
        progress,
      });
      state.realNode = prepared.nodes[0]?.state;
      state.realNodes = prepared.nodes.map((n) => n.state);
      if (prepared.ovs) state.ovs = prepared.ovs;
      writeState(layout, state);
      progress(`  real node(s) prepared after ${formatDuration(Date.now() - inputs.started)}`);
    }
    const first = prepared?.nodes[0];
    const commands = componentCommands({
      binDir: inputs.binDir,
      stageFiles: inputs.stageFiles,
      ports,
      pki,
      kubeconfig: layout.kubeconfig,
      etcdData: layout.etcdData,
      kwokConfig: layout.kwokConfig,
      ...(audit ? { audit } : {}),
      admissionWebhooks: options.admissionWebhooks ?? false,
      ...(options.nodeMonitorGracePeriodSeconds
        ? { nodeMonitorGracePeriodSeconds: options.nodeMonitorGracePeriodSeconds }
        : {}),
      realNode: first &&
        prepared && {
          nodeIp: first.state.ip,
          kubeletClientCert: prepared.apiserverKubeletClient.cert,
          kubeletClientKey: prepared.apiserverKubeletClient.key,
        },
    });
    const netnsLauncher = first ? inNetns(layout.name, []) : undefined;
    const launchControlPlane = (component: (typeof controlPlaneComponents)[number]) =>
      launch(component, commands[component], netnsLauncher);
    const launchNode = (node: PreparedNode, component: ComponentName) => {
      const spec = node.commands[component];
      if (!spec) throw new Error(`real node ${node.state.name} has no ${component}`);
      return launch(
        component,
        spec.command,
        spec.launcher,
        spec.inDaemonsCgroup ? node.daemonCgroups : undefined,
      );
    };

    if (first) {
      launchNode(first, 'port-forward-netns');
      launchNode(first, 'port-forward');
    }
    const etcd = launchControlPlane('etcd');
    await waitFor(etcd, 'etcd', () => etcdHealthy(ports.etcdClient));
    const apiserverProc = launchControlPlane('kube-apiserver');
    await waitFor(apiserverProc, 'kube-apiserver', () => apiserverReady(server, tls));
    if (first) await applyRealNodeObjects(server, tls);
    const kcm = launchControlPlane('kube-controller-manager');
    const sched = launchControlPlane('kube-scheduler');
    const kwok = launchControlPlane('kwok');
    await createFakeNodes(server, tls, inputs.nodes);
    await setFakeNodeTaints(server, tls, first !== undefined);
    await deleteRealNodeObjects(server, tls, prepared?.nodes.map((n) => n.state.name) ?? []);
    await Promise.all([
      waitFor(kcm, 'kube-controller-manager', () => componentHealthy(ports.controllerManager)),
      waitFor(sched, 'kube-scheduler', () => componentHealthy(ports.scheduler)),
      waitFor(kwok, `${inputs.nodes} fake nodes Ready (kwok)`, () => nodesReady(server, tls, inputs.nodes)),
      waitFor(kcm, 'default ServiceAccount', () => defaultServiceAccountExists(server, tls)),
      ...(prepared?.nodes ?? []).map((node) =>
        startNodeDaemons(node, {
          launchNode: (component) => launchNode(node, component),
          waitFor,
          server,
          tls,
          images: [prepared?.pauseImage ?? '', ...(options.images ?? [])],
          deadline,
          progress,
        }),
      ),
    ]).catch((error: unknown) => {
      abort.abort();
      throw error;
    });
  } catch (error) {
    const problems = await stopComponents(layout);
    releaseCluster(layout.name);
    if (problems.length > 0) progress(`cleaning up after the failed start: ${problems.join('; ')}`);
    throw error;
  }
  if (options.detach) releaseCluster(layout.name);
  return state;
}

interface NodeStartContext {
  launchNode: (component: ComponentName) => StartedProcess;
  waitFor: (proc: StartedProcess, what: string, probe: () => Promise<boolean>) => Promise<void>;
  server: string;
  tls: TlsClient;
  /** The pause image, then the caller's. */
  images: readonly string[];
  /** The start's deadline: the image import's time is added to it. */
  deadline: { at: number };
  progress: (line: string) => void;
}

/** containerd, the pause image (and the caller's images), then kubelet, kube-proxy and (first node) CoreDNS. */
async function startNodeDaemons(node: PreparedNode, ctx: NodeStartContext): Promise<void> {
  const { launchNode, waitFor, server, tls } = ctx;
  const { name, index, containerdSocket, netnsPath, ports } = node.state;
  const containerd = launchNode(node.daemons.containerd);
  await waitFor(containerd, `containerd (${name})`, () => containerdReady(containerdSocket));
  const importStarted = Date.now();
  const loaded = await importImages(containerdSocket, ctx.images);
  ctx.deadline.at += Date.now() - importStarted;
  ctx.progress(`  images loaded into ${name}: ${loaded.join(', ')}`);
  const kubelet = launchNode(node.daemons.kubelet);
  const proxy = launchNode(node.daemons['kube-proxy']);
  const dns = index === 1 ? launchNode('coredns') : undefined;
  await Promise.all([
    waitFor(kubelet, `real node ${name} Ready, not-ready taint gone (kubelet)`, () =>
      realNodeReady(server, tls, name),
    ),
    waitFor(proxy, `kube-proxy synced (${name})`, () =>
      index === 1
        ? localHttpOk(ports.kubeProxyHealth, '/healthz')
        : httpOkInNetns(netnsPath, ports.kubeProxyHealth, '/healthz'),
    ),
    ...(dns ? [waitFor(dns, 'CoreDNS ready', () => localHttpOk(ports.corednsReady, '/ready'))] : []),
  ]);
}

/** `realNodes`, else 1 with `realNode`, else 0; checked. */
function wantedRealNodes(options: StartOptions): number {
  const count = options.realNodes ?? (options.realNode ? 1 : 0);
  if (!Number.isInteger(count) || count < 0 || count > maxRealNodes)
    throw new Error(`--real-nodes must be an integer from 0 to ${maxRealNodes}, got ${count}`);
  return count;
}

interface WaitInputs {
  proc: StartedProcess;
  what: string;
  probe: () => Promise<boolean>;
  /** Every process started so far: if any exits meanwhile, that is the error to report. */
  processes: readonly StartedProcess[];
  deadline: { at: number };
  signal: AbortSignal;
}

async function waitUntil({ proc, what, probe, processes, deadline, signal }: WaitInputs): Promise<void> {
  for (;;) {
    const exited = processes.find((p) => p.exit !== undefined);
    if (exited?.exit) {
      const how = exited.exit.signal ? `signal ${exited.exit.signal}` : `code ${exited.exit.code}`;
      throw new ComponentStartError(
        exited.name,
        `exited (${how}) during start-up`,
        exited.command,
        exited.logFile,
      );
    }
    if (signal.aborted) throw new Error(`gave up waiting for ${what}: another component failed`);
    if (await probe()) return;
    if (Date.now() > deadline.at) {
      throw new ComponentStartError(
        proc.name,
        `did not become ready (${what}) in time`,
        proc.command,
        proc.logFile,
      );
    }
    await sleep(100);
  }
}

/** The components a cluster started with this state should have running. */
function expectedComponents(state: ClusterState): ComponentName[] {
  return clusterComponents(realNodeCount(state));
}

/** Components whose pid file points at a live process running the recorded binary. */
export function runningComponents(layout: ClusterLayout): ComponentName[] {
  const state = readState(layout);
  return clusterComponents(state ? realNodeCount(state) : 1).filter((component) => {
    const pid = readPid(layout.pidFile(component));
    const executable = state?.components[component]?.command[0];
    return pid !== undefined && executable !== undefined && isAlive(pid) && runsExecutable(pid, executable);
  });
}

/**
 * Stops in reverse dependency order: the real node's kubelet first (and its Node object is
 * deleted, so a restart with kept data does not show a dead node), kube-proxy, CoreDNS and
 * containerd; then the API clients (kwok, scheduler, controller-manager), the API server and etcd,
 * so that nothing logs errors about a vanished dependency; then the port forwarder, and the real
 * node's teardown (containers, mounts, namespace, cgroups, files, kernel values). Returns what the
 * teardown could not undo.
 */
async function stopComponents(layout: ClusterLayout): Promise<string[]> {
  const state = readState(layout);
  const stop = (component: ComponentName) => {
    const executable = state?.components[component]?.command[0] ?? join(state?.binDir ?? '', component);
    return stopProcess(layout.pidFile(component), executable);
  };
  const realNodes = state ? realNodeCount(state) : 0;
  if (state && realNodes > 0) {
    const indexes = Array.from({ length: realNodes }, (_, i) => i + 1);
    await Promise.all(indexes.map((i) => stop(nodeComponent('kubelet', i))));
    const tls = readClientCredentials(pkiPaths(layout.pki));
    if (await apiserverReady(state.server, tls))
      await deleteRealNodeObjects(state.server, tls).catch(() => {});
    await Promise.all([
      stop('coredns'),
      ...indexes.flatMap((i) =>
        nodeDaemons.filter((d) => d !== 'kubelet').map((d) => stop(nodeComponent(d, i))),
      ),
    ]);
  }
  await Promise.all((['kwok', 'kube-scheduler', 'kube-controller-manager'] as const).map(stop));
  await stop('kube-apiserver');
  await stop('etcd');
  await Promise.all((['port-forward', 'port-forward-netns'] as const).map(stop));
  // Also after a start that failed half-way, before cluster.json knew about the node.
  const recordFile = nodeLayout(layout.root).record;
  const record = readNodeRecord(recordFile);
  if (!record) return [];
  const problems = teardownRealNode(record);
  if (problems.length === 0) rmSync(recordFile, { force: true });
  return problems;
}

/** Stops a cluster by name (from any process); `purge` deletes its state (etcd data, PKI, logs). */
export async function stopCluster(name: string, options: { purge?: boolean } = {}): Promise<void> {
  const layout = clusterLayout(name);
  mkdirSync(dirname(layout.lock), { recursive: true });
  const lock = await acquireLock(layout.lock);
  let problems: string[];
  try {
    problems = await stopComponents(layout);
    if (options.purge && problems.length === 0) rmSync(layout.root, { recursive: true, force: true });
  } finally {
    lock.release();
    releaseCluster(name);
  }
  if (problems.length > 0) {
    throw new Error(
      `cluster ${name} stopped, but its real node left something behind:\n  ${problems.join('\n  ')}`,
    );
  }
}

/** Names of the clusters that have a state directory. */
export function listClusters(): string[] {
  const dir = clustersDir();
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

export interface ClusterStatus {
  name: string;
  /**
   * running: all components up and the API server ready; degraded: some up; stopped: none;
   * absent: no cluster of that name (never started, or purged).
   */
  phase: 'running' | 'degraded' | 'stopped' | 'absent';
  server: string | undefined;
  kubeconfigPath: string;
  realNode: ClusterState['realNode'];
  realNodes: NonNullable<ClusterState['realNodes']>;
  components: Array<{ name: ComponentName; pid: number | undefined; running: boolean }>;
}

export async function clusterStatus(name: string): Promise<ClusterStatus> {
  const layout = clusterLayout(name);
  const state = readState(layout);
  const running = new Set(runningComponents(layout));
  let phase: ClusterStatus['phase'] = running.size === 0 ? 'stopped' : 'degraded';
  if (running.size === 0 && !existsSync(layout.root)) phase = 'absent';
  const expected = state ? expectedComponents(state) : [...controlPlaneComponents];
  if (state && expected.every((c) => running.has(c))) {
    if (await apiserverReady(state.server, readClientCredentials(pkiPaths(layout.pki)))) phase = 'running';
  }
  return {
    name,
    phase,
    server: state?.server,
    kubeconfigPath: layout.kubeconfig,
    realNode: state?.realNode,
    realNodes: allRealNodes(state),
    components: expected.map((component) => ({
      name: component,
      pid: running.has(component) ? readPid(layout.pidFile(component)) : undefined,
      running: running.has(component),
    })),
  };
}

function makeHandle(
  layout: ClusterLayout,
  state: ClusterState,
  extra: { reused: boolean; startupMs: number; ephemeral: boolean },
): ClusterHandle {
  return {
    name: layout.name,
    layout,
    state,
    kubeconfigPath: layout.kubeconfig,
    server: state.server,
    binDir: state.binDir,
    realNode: state.realNode,
    realNodes: allRealNodes(state),
    reused: extra.reused,
    startupMs: extra.startupMs,
    stop: (opts = {}) => stopCluster(layout.name, { purge: opts.purge ?? extra.ephemeral }),
  };
}

function allRealNodes(state: ClusterState | undefined): NonNullable<ClusterState['realNodes']> {
  return state?.realNodes ?? (state?.realNode ? [state.realNode] : []);
}
