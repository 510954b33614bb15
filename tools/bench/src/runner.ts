import { spawn } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { startCluster } from '@stackops/kube-env';
import {
  createKubeClient,
  type KindRef,
  Kinds,
  type KubeClient,
  type KubeObject,
  type RestKubeClient,
} from '@stackops/lib-common/client';
import { formatTime } from '@stackops/lib-common/conditions';
import { slimForCache } from '@stackops/lib-common/runtime';
import { installCrds, loadTestKubeConfig, waitUntil } from '@stackops/lib-common/testing';
import {
  type AuditEvent,
  AuditLog,
  type RequestTally,
  requestFloor,
  subjectFilter,
  tallyOf,
} from './audit.js';
import {
  ControlPlaneClock,
  controlPlaneDone,
  unionLength,
  writesOutsideControlPlane,
} from './control-plane-time.js';
import { asBaselineObject, bodyKey, type OperatorBodies, readOperatorBodies } from './operator-bodies.js';
import { type ProcSample, sample } from './proc.js';
import { type RunningSubject, type SubjectSpec, startSubject, subjectEnv } from './subject.js';
import { buildTimeline, describeTimeline } from './timeline.js';
import { watchListsAnswered, watchListsOf } from './watch-list-floor.js';
import { type DoneWatch, nodeFlags, type Workload } from './workloads.js';

/** One figure of one run; `detail` says what the requests were; `lines` where the time went. */
export interface Figure {
  value: number;
  detail?: string;
  lines?: string[];
}
export type RunFigures = Record<string, Figure>;

export interface RunOptions {
  /** kube-env cluster name; the cluster is started fresh for every run (same data for every run). */
  cluster: string;
  outDir: string;
  /** Length of the idle window, seconds (figures are also given per 5 min). */
  idleSeconds: number;
  /** How long the scale scenario waits for every instance. */
  scaleTimeoutSeconds: number;
  progress: (line: string) => void;
}

const MiB = 1024 * 1024;

/** A fresh control plane writing an audit log, and a client whose requests the bench never counts. */
export async function freshCluster(name: string, outDir: string, progress: (l: string) => void) {
  const auditPath = join(outDir, `${name}-audit.log`);
  mkdirSync(outDir, { recursive: true });
  rmSync(auditPath, { force: true });
  const handle = await startCluster({
    name,
    nodes: 1,
    fresh: true,
    reuse: true,
    detach: true,
    auditLog: auditPath,
    timeoutMs: 180_000,
    progress: () => {},
  });
  progress(`  cluster ${name} up in ${(handle.startupMs / 1000).toFixed(1)} s`);
  const kc = loadTestKubeConfig(handle.kubeconfigPath);
  const client = createKubeClient(kc, { fieldManager: 'stackops-bench', userAgent: 'stackops-bench/0.1.0' });
  // The subjects' kubeconfig, as JSON (YAML parsers read it too): an operator's pod reads none
  // (in-cluster config), so none of ours or Go's should parse YAML on its way to ready here.
  const kubeconfig = `${handle.kubeconfigPath}.json`;
  writeFileSync(kubeconfig, kc.exportConfig());
  return { handle, client, audit: new AuditLog(auditPath), kubeconfig };
}

export async function createNamespace(client: RestKubeClient, name: string): Promise<string> {
  await client.create(Kinds.Namespace, {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name },
  } as KubeObject);
  return name;
}

/**
 * How often one instance is checked for done: every poll adds up to this much to a time of
 * 0.1–0.3 s (sip, network-addons), so it is short; the bench's GETs are not the subject's.
 */
const DONE_POLL_MS = 5;

/** Polls `check` every `intervalMs` until it holds; returns performance.now() at that moment. */
export const until = (
  what: string,
  check: () => Promise<boolean>,
  timeoutMs: number,
  intervalMs = 20,
): Promise<number> =>
  waitUntil(what, async () => ((await check()) ? performance.now() : undefined), { timeoutMs, intervalMs });

/**
 * Waits until the subject has sent no request for `quietMs` (at most `maxMs`), so the next
 * window starts clean: late status writes and Events of the previous step are not counted in it.
 */
export async function settle(
  audit: AuditLog,
  filter: (e: AuditEvent) => boolean,
  quietMs = 1500,
  maxMs = 20_000,
): Promise<void> {
  const start = audit.mark();
  let last = 0;
  let lastChange = performance.now();
  const deadline = performance.now() + maxMs;
  while (performance.now() < deadline) {
    await sleep(100);
    const n = audit.tally(filter, start).total;
    if (n !== last) {
      last = n;
      lastChange = performance.now();
    } else if (performance.now() - lastChange >= quietMs) return;
  }
}

const CORES = availableParallelism();

/** CPU between two samples: the scheduler's nanosecond count, unless a thread ended between them (then clock ticks). */
function cpuBetween(before: ProcSample, after: ProcSample): { seconds: number; clock: string } {
  const precise = after.cpuPrecise - before.cpuPrecise;
  const ticks = after.cpu - before.cpu;
  return precise >= 0 && precise + 0.02 >= ticks
    ? { seconds: precise, clock: 'ns' }
    : { seconds: ticks, clock: '10 ms ticks' };
}

/**
 * How many of the machine's cores a run kept busy on average (every process it measured, over
 * its wall time): at the core count, the run was bound by CPU, and its time is its CPU ÷ cores.
 */
function coresBusy(parts: readonly (readonly [string, number])[], seconds: number): Figure {
  const total = parts.reduce((sum, [, cpu]) => sum + cpu, 0);
  return {
    value: seconds > 0 ? total / seconds : 0,
    detail: `${parts.map(([who, cpu]) => `${who} ${cpu.toFixed(1)}`).join(' + ')} CPU-s over ${seconds.toFixed(1)} s, of ${CORES} cores`,
  };
}

/** CPU seconds of the bench's own process since it was called (user + system). */
function benchCpu(): () => number {
  const start = process.cpuUsage();
  return () => {
    const used = process.cpuUsage(start);
    return (used.user + used.system) / 1e6;
  };
}

/**
 * CPU seconds (utime + stime) of each control-plane process of a cluster since `cpuOf` was called:
 * who paid for the work of a scenario (the API server, etcd, the controller-manager, kwok…).
 */
function controlPlaneCpu(components: Partial<Record<string, { pid: number }>>): () => Figure {
  const pids = Object.entries(components).flatMap(([name, c]) => (c ? [[name, c.pid] as const] : []));
  const before = new Map(pids.map(([name, pid]) => [name, sample(pid).cpu]));
  return () => {
    const used = pids.map(([name, pid]) => [name, sample(pid).cpu - (before.get(name) ?? 0)] as const);
    return {
      value: used.reduce((sum, [, cpu]) => sum + cpu, 0),
      detail: used
        .filter(([, cpu]) => cpu > 0)
        .sort((a, b) => b[1] - a[1])
        .map(([name, cpu]) => `${name} ${cpu.toFixed(1)} s`)
        .join(', '),
    };
  };
}

/**
 * The API server holds a custom resource's create for 2 s while its CRD's Established condition
 * (whole seconds) is under 2 s old. A user's CRDs are older than that, so the bench lets the hold
 * pass before it times an apply instead of timing the hold (it made 2 of 14 NetworkAddonsConfig
 * applies take 2.3 s instead of 0.2–0.5 s).
 */
const CRD_CREATE_HOLD_MS = 3000;
const pastCreateHold = (crdsAt: number) =>
  sleep(Math.max(0, crdsAt + CRD_CREATE_HOLD_MS - performance.now()));

/**
 * The API server makes a custom resource's storage and watch cache at the first request for it and
 * answers watch-lists with 429 ("storage is (re)initializing", after holding them 0.1–0.2 s) until
 * that cache has read etcd. On a user's cluster the CRDs have been served long before an operator
 * starts; here they were installed a moment ago. So the bench asks for each kind once, as a
 * watch-list, until one is answered, before it spawns anything: spawn → ready times the operator,
 * not the first use of a kind the API server has just learnt about.
 */
async function warmCrdStorage(client: RestKubeClient, crds: readonly KubeObject[]): Promise<void> {
  await Promise.all(
    crds.map(async (crd) => {
      const kind = crdKind(crd);
      for (let attempt = 0; ; attempt++) {
        try {
          await watchListOnce(client, kind);
          return;
        } catch (err) {
          if (attempt >= 50) throw err;
          await sleep(100);
        }
      }
    }),
  );
}

/** The served version of a CRD as a kind the client can list. */
function crdKind(crd: KubeObject): KindRef {
  const spec = (crd as { spec?: CrdSpec }).spec;
  if (!spec) throw new Error(`${crd.metadata.name}: not a CustomResourceDefinition`);
  const version = spec.versions.find((v) => v.storage) ?? spec.versions[0];
  return {
    group: spec.group,
    version: version?.name ?? 'v1',
    kind: spec.names.kind,
    plural: spec.names.plural,
    namespaced: spec.scope === 'Namespaced',
  };
}
interface CrdSpec {
  group: string;
  names: { kind: string; plural: string };
  scope: string;
  versions: { name: string; storage?: boolean }[];
}

/** One watch-list of the kind, ended by the bench at the initial-events-end bookmark. */
async function watchListOnce(client: RestKubeClient, kind: KindRef): Promise<void> {
  const ac = new AbortController();
  let synced = false;
  await client
    .watch(
      kind,
      {
        sendInitialEvents: true,
        resourceVersionMatch: 'NotOlderThan',
        allowWatchBookmarks: true,
        timeoutSeconds: 5,
        signal: ac.signal,
      },
      (e) => {
        if (
          e.type === 'BOOKMARK' &&
          e.object.metadata?.annotations?.['k8s.io/initial-events-end'] === 'true'
        ) {
          synced = true;
          ac.abort();
        }
      },
    )
    .catch((err: unknown) => {
      if (!synced) throw err;
    });
  if (!synced) throw new Error(`${kind.plural}: the watch-list ended before its initial events`);
}

/** A fresh cluster with the workload's CRDs served, cluster-wide setup and one prepared namespace `bench`. */
export async function preparedCluster(
  w: Workload,
  opts: Pick<RunOptions, 'cluster' | 'outDir' | 'progress'>,
) {
  const cluster = await freshCluster(opts.cluster, opts.outDir, opts.progress);
  try {
    await installCrds(cluster.client, w.crds());
    await warmCrdStorage(cluster.client, w.crds());
    const crdsAt = performance.now();
    await w.setup?.(cluster.client);
    const ns = await createNamespace(cluster.client, 'bench');
    await w.prepare(cluster.client, ns);
    return { ...cluster, ns, crdsAt };
  } catch (err) {
    cluster.client.close();
    throw err;
  }
}

const logFileOf = (spec: SubjectSpec, opts: RunOptions, suffix = '') =>
  join(opts.outDir, `${spec.name.replace(/[^a-z0-9.-]+/gi, '_')}${suffix}.log`);

const requestsFigure = (t: RequestTally): Figure => ({ value: t.total, detail: t.describe() });
const writesFigure = (t: RequestTally): Figure => ({ value: t.writes, detail: t.describeWrites() || 'none' });

/**
 * One run of one operator, on a fresh cluster: startup (spawn → ready), apply → done, idle window,
 * one change, restart with nothing changed. Every request is the subject's as the audit log has it.
 */
export async function runOnce(
  w: Workload,
  spec: SubjectSpec,
  opts: RunOptions,
  /** Given and still empty: gets the objects the subject wrote for the instance once it was done (the baselines' bodies). */
  keep?: { bodies?: OperatorBodies },
): Promise<RunFigures> {
  const f: RunFigures = {};
  const { client, audit, kubeconfig, ns, crdsAt } = await preparedCluster(w, opts);
  const filter = subjectFilter(spec.userAgent);
  const logFile = logFileOf(spec, opts);
  let subject: RunningSubject | undefined;
  let watcher: Watcher | undefined;
  try {
    // startup
    let mark = audit.mark();
    subject = await startSubject(spec, { kubeconfig, logFile });
    f['startup: spawn → ready (s)'] = { value: subject.readySeconds };
    await settle(audit, filter);
    const startupEvents = audit.read(mark);
    f['startup: requests'] = requestsFigure(tallyOf(startupEvents, filter));
    Object.assign(f, await watchListFloor('startup', startupEvents, filter, kubeconfig, opts));
    f['startup: RSS (MiB)'] = { value: subject.sample().rss / MiB };
    const startupWatches = watchListsOf(startupEvents, filter);

    // apply → done, and what of it the control plane imposed
    const clock = new ControlPlaneClock(client, w.controlPlaneKinds, w.namespaced ? ns : undefined);
    await clock.ready();
    await pastCreateHold(crdsAt);
    const doneSeen = new DoneClock(client, w.doneWatches ?? (w.watchDone ? [w.watchDone] : []));
    await doneSeen.ready();
    mark = audit.mark();
    const applied = performance.now();
    await w.apply(client, ns);
    clock.imposed(applied, performance.now());
    // The poll decides (and plays a missing controller's part); the watch says when.
    const polled = await until(
      'the instance to be done',
      () => w.done(client, ns),
      180_000,
      DONE_POLL_MS,
    ).catch(async (err: unknown) => {
      await doneSeen.stop();
      throw err;
    });
    const done = await doneSeen.doneAt(polled);
    const applySeconds = (done - applied) / 1000;
    const cpSpans = clock.spans(applied, done);
    const cpSeconds = unionLength(cpSpans) / 1000;
    await clock.stop();
    // Read once: every run writes the same objects.
    if (keep && !keep.bodies && w.controlPlaneStages)
      keep.bodies = await readOperatorBodies(client, ns, w.controlPlaneStages(ns).flat());
    f['apply → done (s)'] = { value: applySeconds };
    f['apply: control plane (s)'] = { value: cpSeconds };
    f['apply: ÷ control plane'] = { value: cpSeconds > 0 ? applySeconds / cpSeconds : Number.NaN };
    await settle(audit, filter);
    const applyEvents = audit.read(mark);
    f['apply: requests'] = requestsFigure(tallyOf(applyEvents, filter));
    const answering = writesOutsideControlPlane(applyEvents, filter, cpSpans, applied, done);
    f['apply: floor ÷ control plane'] = {
      value: cpSeconds > 0 ? (cpSeconds + answering.seconds) / cpSeconds : Number.NaN,
      detail: `the control plane ${cpSeconds.toFixed(3)} s + the API server answering the operator's ${answering.writes} writes while no control-plane work ran ${answering.seconds.toFixed(3)} s`,
    };

    // idle
    // The subject's watches alone, in a process of their own that has just synced (as the subject
    // has just done its apply): what holding them costs at idle. Started after the apply, so it
    // takes no CPU from the subject's apply.
    watcher = startupWatches.length
      ? await startWatcher(kubeconfig, startupWatches, nodeFlags(w.dir)).catch((err: unknown) => {
          opts.progress(
            `  the watches alone not measured: ${err instanceof Error ? err.message : String(err)}`,
          );
          return undefined;
        })
      : undefined;
    await settle(audit, filter, 3000, 30_000);
    const before: ProcSample = subject.sample();
    const watcherBefore = watcher ? sample(watcher.pid) : undefined;
    mark = audit.mark();
    await sleep(opts.idleSeconds * 1000);
    const after = subject.sample();
    const watcherAfter = watcher ? sample(watcher.pid) : undefined;
    const idle = audit.tally(filter, mark);
    const per5min = 300 / opts.idleSeconds;
    f['idle: requests / 5 min'] = {
      value: idle.total * per5min,
      detail: `${idle.describe()} in ${opts.idleSeconds} s`,
    };
    f['idle: writes / 5 min'] = { value: idle.writes * per5min };
    const idleCpu = cpuBetween(before, after);
    f['idle: CPU s / 5 min'] = {
      value: idleCpu.seconds * per5min,
      detail: `${idleCpu.seconds.toFixed(3)} s in ${opts.idleSeconds} s (${idleCpu.clock})`,
    };
    f['idle: RSS (MiB)'] = { value: after.rss / MiB };
    if (watcher && watcherBefore && watcherAfter) {
      const watching = cpuBetween(watcherBefore, watcherAfter);
      f['idle: the watches alone, CPU s / 5 min'] = {
        value: watching.seconds * per5min,
        detail: `watcher.js holding the subject's ${watcher.informers} cluster-wide watch-lists, started after the apply: ${watching.seconds.toFixed(3)} s in the same ${opts.idleSeconds} s (${watching.clock})`,
      };
    }
    await watcher?.stop();
    watcher = undefined;

    // one change
    if (w.change) {
      mark = audit.mark();
      const changed = performance.now();
      await w.change(client, ns);
      await sleep(50); // the status still describes the previous generation until the operator sees it
      const doneAgain = await until('the change to be done', () => w.done(client, ns), 120_000, DONE_POLL_MS);
      f['change → done (s)'] = { value: (doneAgain - changed) / 1000 };
      await settle(audit, filter);
      f['change: requests'] = requestsFigure(audit.tally(filter, mark));
    }
    f['peak RSS, one instance (MiB)'] = { value: subject.sample().hwm / MiB };

    // restart with nothing changed
    await settle(audit, filter, 3000, 30_000);
    await subject.stop();
    // The stopped process's watches reach the audit log as they end, a few ms after it exits:
    // they belong to the previous process, not to the restart.
    await settle(audit, filter, 500, 10_000);
    mark = audit.mark();
    subject = await startSubject(spec, { kubeconfig, logFile });
    f['restart: spawn → ready (s)'] = { value: subject.readySeconds };
    await sleep(5000);
    await settle(audit, filter, 2000, 30_000);
    const restart = audit.tally(filter, mark);
    f['restart: requests'] = requestsFigure(restart);
    f['restart: writes'] = writesFigure(restart);
    Object.assign(f, await watchListFloor('restart', audit.read(mark), filter, kubeconfig, opts));
  } finally {
    await watcher?.stop();
    await subject?.stop();
    client.close();
  }
  return f;
}

/**
 * `<phase>: watch-lists answered (s)`: the subject's watch-lists of that start, sent again at once
 * on a new connection from the bench (`watchListsAnswered`), in the same cluster state. With the
 * code-loaded floor it bounds spawn → ready from below. None when the subject sent no watch-list
 * (a Go operator lists, then watches); a failure is reported and leaves the figure out.
 */
async function watchListFloor(
  phase: 'startup' | 'restart',
  events: readonly AuditEvent[],
  filter: (e: AuditEvent) => boolean,
  kubeconfig: string,
  opts: RunOptions,
): Promise<RunFigures> {
  const paths = watchListsOf(events, filter);
  if (paths.length === 0) return {};
  try {
    const seconds = await watchListsAnswered(loadTestKubeConfig(kubeconfig), paths);
    return {
      [`${phase}: watch-lists answered (s)`]: {
        value: seconds,
        detail: `its ${paths.length} watch-lists at once on a new HTTP/2 connection from the bench`,
      },
    };
  } catch (err) {
    opts.progress(`  ${phase} watch-list floor failed: ${err instanceof Error ? err.message : String(err)}`);
    return {};
  }
}

/**
 * `count` instances at once (one per namespace), prerequisites created before the subject starts:
 * apply → all done, requests, CPU, peak RSS (VmHWM since spawn).
 */
export async function runScale(
  w: Workload,
  spec: SubjectSpec,
  count: number,
  opts: RunOptions,
  /**
   * Given: gets one instance as the subject left it (its status is the floor run's, below) and the
   * subject's watch-lists (the floor run keeps the same watches).
   */
  keep?: { instance?: KubeObject; watches?: string[] },
): Promise<RunFigures> {
  const f: RunFigures = {};
  const { client, audit, kubeconfig, handle } = await freshCluster(opts.cluster, opts.outDir, opts.progress);
  const filter = subjectFilter(spec.userAgent);
  const logFile = logFileOf(spec, opts, '-scale');
  let subject: RunningSubject | undefined;
  try {
    await installCrds(client, w.crds());
    await warmCrdStorage(client, w.crds());
    const crdsAt = performance.now();
    await w.setup?.(client);
    const namespaces = Array.from({ length: count }, (_, i) => `bench-${i}`);
    await inBatches(namespaces, 20, async (ns) => {
      await createNamespace(client, ns);
      await w.prepare(client, ns);
    });
    const spawnMark = audit.mark();
    subject = await startSubject(spec, { kubeconfig, logFile });
    await settle(audit, filter);
    if (keep) keep.watches = watchListsOf(audit.read(spawnMark), filter);
    const cpu0 = subject.sample().cpu;
    let peakRss = 0;
    const sampler = setInterval(() => {
      peakRss = Math.max(peakRss, subject?.sample().rss ?? 0);
    }, 200);
    await pastCreateHold(crdsAt);
    const mark = audit.mark();
    const cpCpu = controlPlaneCpu(handle.state.components);
    const started = performance.now();
    const benchCpuUsed = benchCpu();
    await inBatches(namespaces, 20, (ns) => w.apply(client, ns));
    const pending = new Set(namespaces);
    const watched = w.watchDone ? watchDoneNamespaces(client, w.watchDone, pending) : undefined;
    const done = await until(
      `${count} instances to be done`,
      async () => {
        if (watched) return pending.size === 0;
        if (w.doneNamespaces) for (const ns of await w.doneNamespaces(client)) pending.delete(ns);
        else
          await inBatches([...pending], 20, async (ns) => {
            if (await w.done(client, ns)) pending.delete(ns);
          });
        return pending.size === 0;
      },
      opts.scaleTimeoutSeconds * 1000,
      watched ? 20 : 500,
    )
      .catch(() => performance.now())
      .finally(() => watched?.stop());
    clearInterval(sampler);
    // Not all done in time: the figure is the time waited, marked as such (a lower bound).
    f[`${count}: apply → all done (s)`] = {
      value: pending.size ? Number.POSITIVE_INFINITY : (done - started) / 1000,
      detail: pending.size
        ? `${count - pending.size}/${count} done after ${((done - started) / 1000).toFixed(0)} s (gave up)`
        : 'all done',
    };
    f[`${count}: CPU (s)`] = { value: subject.sample().cpu - cpu0 };
    f[`${count}: the bench's CPU (s)`] = {
      value: benchCpuUsed(),
      detail: "the bench's own process over the run (the instances' creates and the watch of the instances)",
    };
    f[`${count}: control plane CPU (s)`] = cpCpu();
    f[`${count}: cores busy`] = coresBusy(
      [
        ['the control plane', f[`${count}: control plane CPU (s)`]?.value ?? 0],
        ['the subject', f[`${count}: CPU (s)`]?.value ?? 0],
        ['the bench', f[`${count}: the bench's CPU (s)`]?.value ?? 0],
      ],
      (done - started) / 1000,
    );
    f[`${count}: peak RSS (MiB)`] = {
      value: subject.sample().hwm / MiB,
      detail: `VmHWM; highest VmRSS sampled every 200 ms: ${(peakRss / MiB).toFixed(0)} MiB`,
    };
    await settle(audit, filter, 2000, 60_000);
    // The 200 instances' audit log is tens of MB: read once for every figure below.
    const events = audit.read(mark);
    const t = tallyOf(events, filter);
    f[`${count}: requests`] = requestsFigure(t);
    f[`${count}: writes per instance`] = { value: t.writes / count };
    f[`${count}: requests per instance`] = { value: t.total / count };
    if (w.primaryResource)
      f[`${count}: floor of requests per instance`] = requestFloor(events, filter, w.primaryResource, count);
    if (w.watchDone) {
      const instances = (await client.list<KubeObject>(w.watchDone.kind)).items;
      f[`${count}: cached instance, largest (KiB)`] = cachedSize(w.watchDone.kind, instances);
      if (keep) keep.instance = instances[0];
    }
    const allDone = f[`${count}: apply → all done (s)`];
    if (allDone) allDone.lines = describeTimeline(buildTimeline(events, w.primaryResource));
  } finally {
    await subject?.stop();
    client.close();
  }
  return f;
}

/**
 * The bytes (as JSON) of the largest object of the kind as an operator's informer keeps it
 * (lib-common's default transform, `slimForCache`), beside what the API server serves.
 */
function cachedSize(kind: KindRef, items: readonly KubeObject[]): Figure {
  const bytes = (o: unknown) => Buffer.byteLength(JSON.stringify(o));
  const largest = (sizes: number[]) => Math.max(0, ...sizes) / 1024;
  const cached = largest(items.map((o) => bytes(slimForCache(o))));
  return {
    value: cached,
    detail: `${kind.kind} as JSON, ${items.length} objects; as the API server serves it ${largest(items.map(bytes)).toFixed(1)} KiB`,
  };
}

/**
 * Calls `seen` with each object of the kind a watch shows done, from one watch (re-opened if the
 * server ends it; a watch without a resourceVersion starts with every object).
 */
function watchDone(
  client: RestKubeClient,
  w: DoneWatch,
  seen: (obj: KubeObject) => void,
): { opened: Promise<void>; stop(): Promise<void> } {
  const stopper = new AbortController();
  let opened: () => void = () => {};
  const open = new Promise<void>((r) => {
    opened = r;
  });
  const running = (async () => {
    while (!stopper.signal.aborted) {
      await client
        .watch<KubeObject>(w.kind, { signal: stopper.signal, onOpen: () => opened() }, (e) => {
          if ((e.type === 'ADDED' || e.type === 'MODIFIED') && w.done(e.object)) seen(e.object);
        })
        .catch(() => sleep(250));
    }
  })();
  return {
    opened: open,
    stop: async () => {
      stopper.abort();
      opened();
      await running;
    },
  };
}

/** Deletes from `pending` the namespace of each object of the kind that turns done. */
const watchDoneNamespaces = (client: RestKubeClient, w: DoneWatch, pending: Set<string>) =>
  watchDone(client, w, (o) => pending.delete(o.metadata.namespace ?? ''));

/**
 * When the instance (one object of each watched kind) was first seen done on a watch, as the
 * control plane's spans are: apply → done then holds neither the poll's interval nor its GET.
 */
class DoneClock {
  private readonly firstDone = new Map<DoneWatch, number>();
  private readonly watches: { opened: Promise<void>; stop(): Promise<void> }[];

  constructor(
    client: RestKubeClient,
    private readonly kinds: readonly DoneWatch[],
  ) {
    this.watches = kinds.map((w) =>
      watchDone(client, w, () => {
        if (!this.firstDone.has(w)) this.firstDone.set(w, performance.now());
      }),
    );
  }

  /** Resolves once every watch is open (so no event of the instance is missed). */
  async ready(): Promise<void> {
    await Promise.all(this.watches.map((w) => w.opened));
  }

  /**
   * The moment the last instance was seen done, once the poll found them all done at `polled`
   * (its event may still be on the way: waited for up to 1 s); `polled` without a watch.
   */
  async doneAt(polled: number): Promise<number> {
    try {
      const seenAll = () => this.kinds.every((w) => this.firstDone.has(w));
      await waitUntil('the done events', () => seenAll() || undefined, {
        timeoutMs: 1000,
        intervalMs: 2,
      }).catch(() => undefined);
      if (!this.kinds.length || !seenAll()) return polled;
      return Math.min(polled, Math.max(...this.firstDone.values()));
    } finally {
      await this.stop();
    }
  }

  async stop(): Promise<void> {
    await Promise.all(this.watches.map((w) => w.stop()));
  }
}

/**
 * The control plane alone, on a fresh cluster, for `count` instances: the bench itself creates
 * every object one instance brings (`controlPlaneStages`: the instance, its Secrets, RBAC,
 * Services, Jobs, Deployment…), stage after stage as soon as the previous stage's Jobs and
 * Deployments are done, all instances at once, no operator. That time is what the scale scenario
 * cannot beat on this machine; the ratio to it measures what the operator adds (its finalizer,
 * status writes, Events, watches and its own waits).
 */
export async function runControlPlaneAlone(
  w: Workload,
  count: number,
  opts: RunOptions,
  bodies?: OperatorBodies,
): Promise<RunFigures> {
  const run = await runStages(w, count, opts, undefined, bodies);
  if (!run) return {};
  return {
    [`${count}: control plane alone (s)`]: {
      value: run.seconds,
      detail: `${run.stages}; ${run.retries} create(s) sent again after a 5xx or a 120 s timeout`,
      lines: run.timeline,
    },
    [`${count}: control plane alone, its CPU (s)`]: run.cpu,
    [`${count}: control plane alone, the bench's CPU (s)`]: { value: run.clientCpu, detail: CLIENT_CPU },
    [`${count}: control plane alone, cores busy`]: runCoresBusy(run),
  };
}

/**
 * The floor of the many-instance scenario: the control plane alone (above) plus the writes any
 * operator of this kind makes beyond the objects, at the points where it makes them — its
 * finalizer, and a status patch when the instance is created and after each stage (the status
 * `instance` carries, the conditions turning from Unknown stage by stage) — and the watches it
 * keeps (`watches`: its cluster-wide watch-lists, held by lib-common's informers in a process of
 * their own, reconciling nothing). Events are left out: an operator may send none. On cores the
 * control plane keeps busy, no operator that watches what it owns and reports each stage in its
 * status finishes sooner on this machine; this run's time ÷ the control plane alone's is the floor
 * of `÷ control plane alone`.
 */
export async function runOperatorWritesFloor(
  w: Workload,
  count: number,
  opts: RunOptions,
  instance: KubeObject,
  bodies?: OperatorBodies,
  watches: readonly string[] = [],
): Promise<RunFigures> {
  const writes = operatorWrites(w, instance);
  if (!writes) return {};
  const run = await runStages(w, count, opts, writes, bodies, watches);
  if (!run) return {};
  return {
    [`${count}: control plane with the operator's writes and watches (s)`]: {
      value: run.seconds,
      detail: `${run.stages}; per instance besides: the finalizer, ${run.stageCount + 1} status patches of ${writes.conditionCount} conditions; ${run.watches} cluster-wide watches as the operator's`,
      lines: run.timeline,
    },
    [`${count}: control plane with the operator's writes and watches, its CPU (s)`]: run.cpu,
    [`${count}: control plane with the operator's writes and watches, the bench's CPU (s)`]: {
      value: run.clientCpu,
      detail: CLIENT_CPU,
    },
    [`${count}: control plane with the operator's writes and watches, the watches' CPU (s)`]: {
      value: run.watcherCpu,
      detail: `lib-common's informers for the operator's ${run.watches} cluster-wide watch-lists, in a process of their own with the operator's node flags, caching what they receive and reconciling nothing`,
    },
    [`${count}: control plane with the operator's writes and watches, cores busy`]: runCoresBusy(run),
  };
}

const runCoresBusy = (run: { cpu: Figure; clientCpu: number; watcherCpu: number; seconds: number }) =>
  coresBusy(
    [
      ['the control plane', run.cpu.value],
      ['the bench', run.clientCpu],
      ...(run.watcherCpu ? [['the watches', run.watcherCpu] as const] : []),
    ],
    run.seconds,
  );

// The bench's process is the client of those runs, on the same cores: its CPU is inside their
// times as an operator's is inside the operator's run.
const CLIENT_CPU =
  "the bench's own process over the run (its creates and patches, one watch per workload kind, a 20 ms check per instance)";

/** What the floor run writes per instance besides the objects, from an instance the operator left. */
interface OperatorWrites {
  /** The finalizer patch, right after the stage that creates the instance. */
  finalize(client: KubeClient, ns: string): Promise<void>;
  /** The status patch after stage `done` of `stages` (-1: the instance was just created). */
  report(client: KubeClient, ns: string, done: number, stages: number): Promise<void>;
  conditionCount: number;
}

function operatorWrites(w: Workload, instance: KubeObject): OperatorWrites | undefined {
  const kind = w.watchDone?.kind;
  const name = instance.metadata.name ?? '';
  const status = (instance as { status?: Record<string, unknown> }).status;
  const conditions = (status?.['conditions'] ?? []) as Record<string, unknown>[];
  if (!kind || !status) return undefined;
  const finalizers = instance.metadata.finalizers ?? [];
  return {
    conditionCount: conditions.length,
    finalize: async (client, ns) => {
      await client.patch(kind, { name, namespace: ns }, { metadata: { finalizers } }, 'merge');
    },
    report: async (client, ns, done, stages) => {
      const patch = { status: stageStatus(status, done, stages, new Date()) };
      await client.patch(kind, { name, namespace: ns }, patch, 'merge', { subresource: 'status' });
    },
  };
}

/**
 * The status the floor run writes after stage `done` of `stages` (-1: at the start): `status` as
 * the operator left it, with its conditions known stage by stage (the first ones as it left them,
 * the rest Unknown as it starts them), each with a new transition time, so every write changes it.
 */
export function stageStatus(
  status: Record<string, unknown>,
  done: number,
  stages: number,
  at: Date,
): Record<string, unknown> {
  const conditions = (status['conditions'] ?? []) as Record<string, unknown>[];
  const known = Math.round(((done + 1) / stages) * conditions.length);
  const lastTransitionTime = formatTime(at);
  return {
    ...status,
    conditions: conditions.map((c, i) =>
      i < known
        ? { ...c, lastTransitionTime }
        : {
            ...c,
            status: 'Unknown',
            reason: 'Init',
            message: `${c['type']} not started`,
            lastTransitionTime,
          },
    ),
  };
}

/** Every instance's stages in its namespace, each stage once the previous one's Jobs and Deployments are done. */
async function runStages(
  w: Workload,
  count: number,
  opts: RunOptions,
  writes?: OperatorWrites,
  bodies?: OperatorBodies,
  watchPaths: readonly string[] = [],
) {
  const placeholders = w.controlPlaneStages;
  if (!placeholders) return undefined;
  // Each object as the operator wrote it when the apply scenario read one (else its placeholder).
  const stagesOf = (ns: string) =>
    placeholders(ns).map((stage) =>
      stage.map((s) => {
        const body = bodies?.objects.get(bodyKey(s.kind, s.object.metadata.name ?? ''));
        return body ? { kind: s.kind, object: asBaselineObject(body, bodies?.namespace ?? '', ns) } : s;
      }),
    );
  const { client, audit, handle, kubeconfig } = await freshCluster(opts.cluster, opts.outDir, opts.progress);
  let watcher: Watcher | undefined;
  try {
    // The instances themselves are among the objects: their CRDs as the operator's run has them.
    await installCrds(client, w.crds());
    await warmCrdStorage(client, w.crds());
    const crdsAt = performance.now();
    const namespaces = Array.from({ length: count }, (_, i) => `baseline-${i}`);
    await inBatches(namespaces, 20, (ns) => createNamespace(client, ns));
    const mark = audit.mark();
    const cpCpu = controlPlaneCpu(handle.state.components);
    const finished = new Set<string>();
    const key = (o: KubeObject) => `${o.kind}/${o.metadata.namespace}/${o.metadata.name}`;
    const template = stagesOf('x');
    const kinds = [...new Set(template.flatMap((st) => st.map((s) => s.kind)))].filter(
      (k) => k.kind === 'Job' || k.kind === 'Deployment',
    );
    // One watch per kind (a list every 250 ms of 600 Jobs was ~9 % of the API server's CPU here).
    // A watch opened without a resourceVersion starts with every existing object, so re-opening
    // one that the server closed misses nothing.
    const stopper = new AbortController();
    const watches = kinds.map(async (k) => {
      while (!stopper.signal.aborted) {
        await client
          .watch<KubeObject>(k, { signal: stopper.signal }, (e) => {
            const o = { ...e.object, kind: k.kind };
            if ((e.type === 'ADDED' || e.type === 'MODIFIED') && controlPlaneDone(o)) finished.add(key(o));
          })
          .catch(() => sleep(250));
      }
    });
    // The API server creates Services one at a time (their ClusterIPs behind one lock): 400 at
    // once queue for longer than the client's usual 30 s. A client that gave up would send the
    // create again while the abandoned one still holds its place in that queue, so this one waits
    // for the server's own answer (it gives up at 60 s), and sends again only after a 5xx, as an
    // operator would; AlreadyExists then means the first one made it.
    const patient = createKubeClient(loadTestKubeConfig(handle.kubeconfigPath), {
      fieldManager: 'stackops-bench',
      userAgent: 'stackops-bench/0.1.0',
      requestTimeoutMs: 120_000,
    });
    let retries = 0;
    const create = async (s: { kind: KindRef; object: KubeObject }): Promise<void> => {
      for (let attempt = 1; ; attempt++) {
        try {
          await patient.create(s.kind, s.object);
          return;
        } catch (err) {
          const code = (err as { code?: number }).code ?? 0;
          if (attempt > 1 && code === 409) return;
          if (attempt >= 5 || (code !== 0 && code < 500)) throw err;
          retries += 1;
          await sleep(1000);
        }
      }
    };
    await pastCreateHold(crdsAt);
    watcher = watchPaths.length ? await startWatcher(kubeconfig, watchPaths, nodeFlags(w.dir)) : undefined;
    const watcherCpu0 = watcher ? sample(watcher.pid).cpu : 0;
    const started = performance.now();
    const benchCpuUsed = benchCpu();
    let lastDone = started;
    await Promise.all(
      namespaces.map(async (ns) => {
        const stages = stagesOf(ns);
        // A stage's status patch goes with the next stage's creates, as an operator's pass makes
        // them: only the last one is waited for before the instance counts as done.
        let reported: Promise<void> = Promise.resolve();
        for (const [i, stage] of stages.entries()) {
          // The workloads after what their pods name (a pod naming a missing ServiceAccount is
          // refused), as an operator's waves send them.
          const workload = (s: { kind: KindRef }) => WORKLOAD_KINDS.includes(s.kind.kind);
          await Promise.all([...stage.filter((s) => !workload(s)).map(create), reported]);
          await Promise.all(stage.filter(workload).map(create));
          if (writes && i === 0) {
            await writes.finalize(patient, ns);
            await writes.report(patient, ns, -1, stages.length);
          }
          const waitFor = stage.filter((s) => kinds.includes(s.kind)).map((s) => key(s.object));
          await until(
            `${ns}'s stage`,
            async () => waitFor.every((k) => finished.has(k)),
            opts.scaleTimeoutSeconds * 1000,
            20,
          );
          if (writes) reported = writes.report(patient, ns, i, stages.length);
        }
        await reported;
        lastDone = Math.max(lastDone, performance.now());
      }),
    ).finally(async () => {
      stopper.abort();
      await Promise.allSettled(watches);
      patient.close();
    });
    const cpu = cpCpu();
    return {
      seconds: (lastDone - started) / 1000,
      cpu,
      clientCpu: benchCpuUsed(),
      watcherCpu: watcher ? sample(watcher.pid).cpu - watcherCpu0 : 0,
      watches: watcher?.informers ?? 0,
      retries,
      stages: `${describeStages(template)}; ${describeBodies(template, bodies)}`,
      stageCount: template.length,
      timeline: describeTimeline(buildTimeline(audit.read(mark))),
    };
  } finally {
    await watcher?.stop();
    client.close();
  }
}

interface Watcher {
  pid: number;
  /** How many informers it runs (the cluster-wide paths among those given). */
  informers: number;
  stop(): Promise<void>;
}

/**
 * Spawns `watcher.js` (an operator's watches alone) with `flags` and waits until its informers
 * have their initial events; its stderr goes to the bench's.
 */
export async function startWatcher(
  kubeconfig: string,
  paths: readonly string[],
  flags: string[],
): Promise<Watcher> {
  // The built script, from src (tests) as from dist.
  const script = fileURLToPath(new URL('../dist/watcher.js', import.meta.url));
  const child = spawn(process.execPath, [...flags, script, kubeconfig, ...paths], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: subjectEnv(process.env),
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const informers = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('watcher: not synced in 60 s')), 60_000);
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const m = /^synced (\d+)$/m.exec(out);
      if (!m) return;
      clearTimeout(timer);
      resolve(Number(m[1]));
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`watcher exited (code ${code}) before it synced`));
    });
  }).catch((err: unknown) => {
    child.kill('SIGKILL');
    throw err;
  });
  return {
    pid: child.pid ?? -1,
    informers,
    stop: async () => {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(killer);
    },
  };
}

const WORKLOAD_KINDS = ['Job', 'Deployment', 'CronJob', 'DaemonSet', 'StatefulSet'];

/** How many of the stages' objects carry the operator's own bodies. */
export function describeBodies(
  stages: readonly { kind: KindRef; object: KubeObject }[][],
  bodies: OperatorBodies | undefined,
): string {
  const all = stages.flat();
  const theirs = all.filter((s) => bodies?.objects.has(bodyKey(s.kind, s.object.metadata.name ?? ''))).length;
  if (theirs === all.length) return 'every object as the operator wrote it in the apply scenario';
  if (theirs === 0) return 'placeholder bodies (no operator run to read them from)';
  return `${theirs} of ${all.length} objects as the operator wrote them in the apply scenario, the rest placeholders`;
}

/** `16 objects per instance in 4 stages: KeystoneAPI, Job; Secret ×3, …` */
export function describeStages(stages: readonly { kind: KindRef }[][]): string {
  const stage = (st: readonly { kind: KindRef }[]) => {
    const counts = new Map<string, number>();
    for (const { kind } of st) counts.set(kind.kind, (counts.get(kind.kind) ?? 0) + 1);
    return [...counts].map(([k, n]) => (n > 1 ? `${k} ×${n}` : k)).join(', ');
  };
  const total = stages.reduce((n, st) => n + st.length, 0);
  return `${total} objects per instance in ${stages.length} stages: ${stages.map(stage).join('; ')}`;
}

/**
 * One instance with every input at its CRD maximum (`applyMaxima`): peak RSS (VmHWM since spawn)
 * once it is done or has given up, the figure the charts' memory settings come from.
 */
export async function runMaxima(w: Workload, spec: SubjectSpec, opts: RunOptions): Promise<RunFigures> {
  if (!w.applyMaxima) return {};
  const { client, kubeconfig, ns, crdsAt } = await preparedCluster(w, opts);
  const logFile = logFileOf(spec, opts, '-maxima');
  let subject: RunningSubject | undefined;
  try {
    subject = await startSubject(spec, { kubeconfig, logFile });
    await pastCreateHold(crdsAt);
    const started = performance.now();
    await w.applyMaxima(client, ns);
    const done = await until('the maxima instance to be done', () => w.done(client, ns), 120_000).catch(
      () => undefined,
    );
    await sleep(3000);
    return {
      'maxima: apply → done (s)': {
        value: done === undefined ? Number.POSITIVE_INFINITY : (done - started) / 1000,
        detail: done === undefined ? 'not done in 120 s (the peak RSS is still measured)' : 'done',
      },
      'maxima: peak RSS (MiB)': { value: subject.sample().hwm / MiB, detail: 'VmHWM since spawn' },
    };
  } finally {
    await subject?.stop();
    client.close();
  }
}

/** The floor: a bare node with the operator's flags serving /readyz (spawn → ready, RSS after 2 s). */
export async function runFloor(spec: SubjectSpec, opts: RunOptions): Promise<RunFigures> {
  const logFile = join(opts.outDir, 'bare-node.log');
  const subject = await startSubject(spec, { kubeconfig: '', logFile });
  try {
    await sleep(2000);
    return {
      'floor: bare node spawn → ready (s)': { value: subject.readySeconds },
      'floor: bare node RSS (MiB)': { value: subject.sample().rss / MiB },
    };
  } finally {
    await subject.stop();
  }
}

/**
 * The other floor under spawn → ready: the operator's own code loaded, compiled and evaluated, and
 * nothing else (its `--help`: the whole bundle is imported before it prints and exits), spawn to
 * exit, median of 5. No operator is ready before this.
 */
export async function runLoadFloor(command: readonly string[]): Promise<RunFigures> {
  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    const child = spawn(command[0] ?? '', command.slice(1), {
      stdio: 'ignore',
      env: subjectEnv(process.env),
    });
    const code = await new Promise<number | null>((resolve, reject) => {
      child.on('error', reject);
      child.on('exit', resolve);
    });
    if (code !== 0) throw new Error(`${command.join(' ')} exited ${code}`);
    times.push((performance.now() - t0) / 1000);
  }
  times.sort((a, b) => a - b);
  return {
    'floor: code loaded, spawn → exit (s)': {
      value: times[2] ?? Number.NaN,
      detail: `\`${command
        .slice(-2)
        .join(' ')
        .replace(/^.*\/operators\//, 'operators/')}\` ×5: ${times.map((t) => t.toFixed(3)).join(', ')} s`,
    },
  };
}

async function inBatches<T>(
  items: readonly T[],
  size: number,
  fn: (item: T) => Promise<unknown>,
): Promise<void> {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(fn));
}
