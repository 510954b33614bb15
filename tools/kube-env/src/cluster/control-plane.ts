import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ensureBinaries } from '../build/build.js';
import { clustersDir } from '../paths.js';
import { ensureClusterPki, pkiPaths, readClientCredentials } from '../pki/cluster-pki.js';
import { formatDuration } from '../util/format.js';
import { acquireLock } from '../util/lock.js';
import { isAlive } from '../util/process-alive.js';
import { cacheKey, kwokStages } from '../versions.js';
import { ownCluster, releaseCluster } from './cleanup.js';
import { componentCommands, kwokConfiguration, type Ports } from './commands.js';
import { ComponentStartError } from './errors.js';
import { writeKubeconfig } from './kubeconfig.js';
import { type ClusterLayout, type ComponentName, clusterLayout, componentNames } from './layout.js';
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
import { type ClusterState, readState, writeState } from './state.js';

export const defaultClusterName = 'stackops-dev';
export const defaultNodeCount = 3;

export interface StartOptions {
  /** Cluster name; its state lives in clusters/<name>/ (default `stackops-dev`). */
  name?: string;
  /** Number of fake nodes (default 3). */
  nodes?: number;
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
  if (!Number.isInteger(nodes) || nodes < 1)
    throw new Error(`--nodes must be a positive integer, got ${nodes}`);
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
        running.length === componentNames.length &&
        (await apiserverReady(state.server, readClientCredentials(pkiPaths(layout.pki))))
      ) {
        progress(`cluster ${name} is already running at ${state.server}; reusing it`);
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
      await stopComponents(layout);
    }
    if (options.fresh) rmSync(layout.root, { recursive: true, force: true });

    const stageFiles = kwokStages.map((stage) => join(cache.stages, basename(stage)));
    for (let attempt = 1; ; attempt++) {
      try {
        const state = await boot(layout, {
          binDir: cache.bin,
          stageFiles,
          nodes,
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
  stageFiles: string[];
  nodes: number;
  options: StartOptions;
  started: number;
  progress: (line: string) => void;
}

/** etcd → kube-apiserver → (controller-manager, scheduler, kwok, nodes) → all ready. */
async function boot(layout: ClusterLayout, inputs: BootInputs): Promise<ClusterState> {
  const { options, progress } = inputs;
  for (const dir of [layout.root, dirname(layout.logFile('etcd')), dirname(layout.pidFile('etcd'))]) {
    mkdirSync(dir, { recursive: true });
  }
  const pki = ensureClusterPki(layout.pki);
  const tls = readClientCredentials(pki);
  const [etcdClient = 0, etcdPeer = 0, apiserver = 0, controllerManager = 0, scheduler = 0] =
    await freePorts(5);
  const ports: Ports = { etcdClient, etcdPeer, apiserver, controllerManager, scheduler };
  const server = `https://127.0.0.1:${apiserver}`;
  writeKubeconfig(layout.kubeconfig, layout.name, server, tls);
  writeFileSync(layout.kwokConfig, kwokConfiguration());
  const commands = componentCommands({
    binDir: inputs.binDir,
    stageFiles: inputs.stageFiles,
    ports,
    pki,
    kubeconfig: layout.kubeconfig,
    etcdData: layout.etcdData,
    kwokConfig: layout.kwokConfig,
  });
  const state: ClusterState = {
    name: layout.name,
    cacheKey: cacheKey(),
    binDir: inputs.binDir,
    server,
    ports,
    nodes: inputs.nodes,
    startedAt: new Date().toISOString(),
    components: {},
  };

  // Tracked for cleanup from the first process on, so Ctrl-C during `up` leaves nothing behind.
  const ownedPids = ownCluster({
    name: layout.name,
    root: layout.root,
    binDir: inputs.binDir,
    purge: (options.ephemeral ?? false) && !options.detach,
  });
  const processes: StartedProcess[] = [];
  const launch = (component: ComponentName): StartedProcess => {
    const proc = startProcess({
      name: component,
      command: commands[component],
      logFile: layout.logFile(component),
      pidFile: layout.pidFile(component),
      cwd: layout.root,
    });
    processes.push(proc);
    ownedPids.push(proc.pid);
    state.components[component] = { pid: proc.pid, command: commands[component] };
    writeState(layout, state);
    return proc;
  };
  const deadline = Date.now() + (options.timeoutMs ?? 120_000);
  const abort = new AbortController();
  const waitFor = (proc: StartedProcess, what: string, probe: () => Promise<boolean>) =>
    waitUntil({ proc, what, probe, processes, deadline, signal: abort.signal }).then(() =>
      progress(`  ${what}: ready after ${formatDuration(Date.now() - inputs.started)}`),
    );

  try {
    const etcd = launch('etcd');
    await waitFor(etcd, 'etcd', () => etcdHealthy(ports.etcdClient));
    const apiserverProc = launch('kube-apiserver');
    await waitFor(apiserverProc, 'kube-apiserver', () => apiserverReady(server, tls));
    const kcm = launch('kube-controller-manager');
    const sched = launch('kube-scheduler');
    const kwok = launch('kwok');
    await createFakeNodes(server, tls, inputs.nodes);
    await Promise.all([
      waitFor(kcm, 'kube-controller-manager', () => componentHealthy(ports.controllerManager)),
      waitFor(sched, 'kube-scheduler', () => componentHealthy(ports.scheduler)),
      waitFor(kwok, `${inputs.nodes} fake nodes Ready (kwok)`, () => nodesReady(server, tls, inputs.nodes)),
      waitFor(kcm, 'default ServiceAccount', () => defaultServiceAccountExists(server, tls)),
    ]).catch((error: unknown) => {
      abort.abort();
      throw error;
    });
  } catch (error) {
    await stopComponents(layout);
    releaseCluster(layout.name);
    throw error;
  }
  if (options.detach) releaseCluster(layout.name);
  return state;
}

interface WaitInputs {
  proc: StartedProcess;
  what: string;
  probe: () => Promise<boolean>;
  /** Every process started so far: if any exits meanwhile, that is the error to report. */
  processes: readonly StartedProcess[];
  deadline: number;
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
    if (Date.now() > deadline) {
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

/** Components whose pid file points at a live process running the recorded binary. */
export function runningComponents(layout: ClusterLayout): ComponentName[] {
  const state = readState(layout);
  return componentNames.filter((component) => {
    const pid = readPid(layout.pidFile(component));
    const executable = state?.components[component]?.command[0];
    return pid !== undefined && executable !== undefined && isAlive(pid) && runsExecutable(pid, executable);
  });
}

/**
 * Stops in reverse dependency order: the API clients first (kwok, scheduler, controller-manager),
 * then the API server, then etcd, so that nothing logs errors about a vanished dependency.
 */
export async function stopComponents(layout: ClusterLayout): Promise<void> {
  const state = readState(layout);
  const stop = (component: ComponentName) => {
    const executable = state?.components[component]?.command[0] ?? join(state?.binDir ?? '', component);
    return stopProcess(layout.pidFile(component), executable);
  };
  await Promise.all((['kwok', 'kube-scheduler', 'kube-controller-manager'] as const).map(stop));
  await stop('kube-apiserver');
  await stop('etcd');
}

/** Stops a cluster by name (from any process); `purge` deletes its state (etcd data, PKI, logs). */
export async function stopCluster(name: string, options: { purge?: boolean } = {}): Promise<void> {
  const layout = clusterLayout(name);
  mkdirSync(dirname(layout.lock), { recursive: true });
  const lock = await acquireLock(layout.lock);
  try {
    await stopComponents(layout);
    if (options.purge) rmSync(layout.root, { recursive: true, force: true });
  } finally {
    lock.release();
    releaseCluster(name);
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
  /** running: all components up and the API server ready; degraded: some up; stopped: none. */
  phase: 'running' | 'degraded' | 'stopped';
  server: string | undefined;
  kubeconfigPath: string;
  components: Array<{ name: ComponentName; pid: number | undefined; running: boolean }>;
}

export async function clusterStatus(name: string): Promise<ClusterStatus> {
  const layout = clusterLayout(name);
  const state = readState(layout);
  const running = new Set(runningComponents(layout));
  let phase: ClusterStatus['phase'] = running.size === 0 ? 'stopped' : 'degraded';
  if (state && running.size === componentNames.length) {
    if (await apiserverReady(state.server, readClientCredentials(pkiPaths(layout.pki)))) phase = 'running';
  }
  return {
    name,
    phase,
    server: state?.server,
    kubeconfigPath: layout.kubeconfig,
    components: componentNames.map((component) => ({
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
    reused: extra.reused,
    startupMs: extra.startupMs,
    stop: (opts = {}) => stopCluster(layout.name, { purge: opts.purge ?? extra.ephemeral }),
  };
}
