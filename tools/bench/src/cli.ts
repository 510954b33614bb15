#!/usr/bin/env node
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { stopCluster } from '@stackops/kube-env';
import type { KubeObject } from '@stackops/lib-common/client';
import { Command, InvalidArgumentError, Option } from 'commander';
import { type GoMode, type GoSide, goSides } from './go.js';
import type { OperatorBodies } from './operator-bodies.js';
import { loadOne, machineLoad } from './proc.js';
import {
  details,
  type OperatorResult,
  renderTable,
  summaryTable,
  TABLE_HEADER,
  timelines,
} from './report.js';
import {
  type RunFigures,
  runControlPlaneAlone,
  runFloor,
  runLoadFloor,
  runMaxima,
  runOnce,
  runOperatorWritesFloor,
  runScale,
} from './runner.js';
import { installRuntime, parseRuntime, type Runtime, underRuntime } from './runtime.js';
import type { SubjectSpec } from './subject.js';
import { withUpstreamInfra } from './upstream-infra.js';
import {
  bareNode,
  chartMemoryLimitMiB,
  codeLoaded,
  type OperatorDir,
  operatorDirs,
  workloads,
} from './workloads.js';
import { runWriteCosts } from './write-costs.js';

/** The machine's cores, read once: the report's header and the own-CPU share divide by the same number. */
const CORES = availableParallelism();

const positiveInt = (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('expected an integer >= 0');
  return n;
};
const collect = (v: string, prev: string[]) => [...prev, v];

const program = new Command('stackops-bench')
  .description(
    'Runs an operator as a process against a fresh local control plane (kube-env, kwok nodes) and reports, per scenario, its requests by verb and resource (API server audit log), RSS and CPU (/proc) and times, as median/min/max over N runs, with the targets of issues 20 and 33.',
  )
  .option('--operators <list>', `comma-separated, of ${operatorDirs.join(', ')}`, operatorDirs.join(','))
  .option('--runs <n>', 'runs per operator (a fresh cluster each)', positiveInt, 3)
  .option('--idle-seconds <s>', 'idle window; figures are also scaled to 5 min', positiveInt, 60)
  .option('--scale <n>', 'instances at once for the scale scenario (keystone; 0 = skip)', positiveInt, 200)
  // Three, like --runs: one 200-instance run swings by a third with the machine's load (ADR 0058).
  .option('--scale-runs <n>', 'runs of the scale scenario, each with its control plane alone', positiveInt, 3)
  .option('--scale-timeout <s>', 'how long the scale scenario waits for every instance', positiveInt, 300)
  .option('--no-baseline', 'skip the control-plane-alone run of the scale scenario')
  .option('--no-maxima', 'skip the one-instance-at-the-CRD-maxima run')
  .option('--no-floor', 'skip the bare-node floor')
  .option(
    '--write-costs',
    'only measure what each kind of write an operator makes costs the API server and etcd (CPU per request, on a fresh cluster), then stop',
  )
  .option(
    '--cluster <name>',
    'kube-env cluster name (started fresh for each run, stopped at the end)',
    'stackops-bench',
  )
  .option('--out <dir>', 'audit logs, operator logs, results.json', 'build/bench')
  .option(
    '--subject-cmd <command line>',
    'measure this command instead of our operator (one --operators workload; split on spaces; {kubeconfig} {probePort} {metricsPort} are filled in)',
  )
  .option('--subject-name <name>', 'name in the report for --subject-cmd', 'subject')
  .option('--subject-ready-url <url>', 'polled until 2xx', 'http://127.0.0.1:{probePort}/readyz')
  .option(
    '--subject-user-agent <regex>',
    "the subject's requests in the audit log (default: every non-control-plane agent)",
  )
  .option('--subject-env <k=v>', 'environment of --subject-cmd (repeatable)', collect, [])
  .option(
    '--play-upstream-infra',
    "keystone: play mariadb-operator's and infra-operator's parts for upstream's Go keystone-operator",
  )
  .addOption(
    new Option(
      '--go <mode>',
      "upstream's Go operator beside ours (keystone, network-addons), alternating run by run: auto = when its binary is cached or can be built from the stored sources; only = the Go operator alone",
    )
      .choices(['auto', 'off', 'only'])
      .default('auto'),
  )
  .option(
    '--runtime <name@version>',
    'run our operator under bun or deno (installed from npm into a cache outside the repository) instead of node',
    parseRuntime,
  );

interface Options {
  operators: string;
  runs: number;
  idleSeconds: number;
  scale: number;
  scaleRuns: number;
  scaleTimeout: number;
  baseline: boolean;
  maxima: boolean;
  floor: boolean;
  writeCosts?: boolean;
  cluster: string;
  out: string;
  subjectCmd?: string;
  subjectName: string;
  subjectReadyUrl: string;
  subjectUserAgent?: string;
  subjectEnv: string[];
  playUpstreamInfra?: boolean;
  runtime?: Runtime;
  go: GoMode;
}

async function main(): Promise<void> {
  program.parse();
  const o = program.opts<Options>();
  // Ctrl-C: stop the cluster (the subject dies with the harness's process group or on its own).
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.once(signal, () => {
      void stopCluster(o.cluster, { purge: true }).finally(() => process.exit(130));
    });
  const dirs = o.operators.split(',').map((s) => s.trim()) as OperatorDir[];
  for (const d of dirs) if (!operatorDirs.includes(d)) throw new Error(`unknown operator "${d}"`);
  if (o.subjectCmd && dirs.length !== 1)
    throw new Error('--subject-cmd needs exactly one --operators workload');
  if (o.subjectCmd && o.runtime) throw new Error('--runtime applies to our operator, not to --subject-cmd');
  if (o.go === 'only' && (o.subjectCmd || o.runtime))
    throw new Error('--go only measures the Go operator: not with --subject-cmd or --runtime');
  const outDir = resolve(o.out);
  mkdirSync(outDir, { recursive: true });
  const progress = (l: string) => process.stderr.write(`${l}\n`);
  const loadBefore = machineLoad();
  const started = new Date();
  if (o.writeCosts) {
    const lines = await runWriteCosts({ cluster: o.cluster, outDir, progress }).finally(() =>
      stopCluster(o.cluster, { purge: true }),
    );
    const out = [
      `stackops bench --write-costs, ${started.toISOString()}: ${loadBefore} before, ${machineLoad()} after.`,
      ...lines,
      '',
    ];
    process.stdout.write(out.join('\n'));
    writeFileSync(join(outDir, 'write-costs.txt'), out.join('\n'));
    return;
  }
  const results: OperatorResult[] = [];
  // The Go column: not beside another subject or runtime (that is the comparison asked for then).
  const go = o.subjectCmd || o.runtime ? { sides: {}, note: '' } : goSides(dirs, o.go, (l) => progress(l));
  if (go.note) progress(go.note);
  try {
    for (const dir of dirs) {
      const goSide: GoSide | undefined = go.sides[dir];
      if (o.go === 'only' && !goSide) throw new Error(`--go only: no Go operator for workload ${dir}`);
      const w = o.playUpstreamInfra ? withUpstreamInfra(workloads[dir]) : workloads[dir];
      const spec: SubjectSpec = o.subjectCmd
        ? {
            name: o.subjectName,
            command: o.subjectCmd.split(/\s+/).filter(Boolean),
            env: Object.fromEntries(
              o.subjectEnv.map((kv) => [kv.split('=')[0] ?? '', kv.split('=').slice(1).join('=')]),
            ),
            readyUrl: o.subjectReadyUrl,
            ...(o.subjectUserAgent ? { userAgent: new RegExp(o.subjectUserAgent) } : {}),
          }
        : o.runtime
          ? underRuntime(w.subject(), o.runtime, installRuntime(o.runtime, progress))
          : w.subject();
      const runs: RunFigures[] = [];
      const goRuns: RunFigures[] = [];
      const goW = goSide?.workload(w);
      const ours = o.go !== 'only';
      // The control plane alone is measured once per scale run, for both sides.
      const baseRuns = ours ? runs : goRuns;
      const opts = {
        cluster: o.cluster,
        outDir,
        idleSeconds: o.idleSeconds,
        scaleTimeoutSeconds: o.scaleTimeout,
        progress,
      };
      // Each run's extra figures (floor, maxima, scale) join the runs' figures at the same index.
      const addTo = (i: number, figures: RunFigures, to = runs) => {
        to[i] = Object.assign(to[i] ?? {}, figures);
      };
      const failed = (what: string) => (err: unknown) => {
        progress(`  ${what} failed: ${err instanceof Error ? err.message : String(err)}`);
        return {};
      };
      // Our operator's objects for one instance, from its first apply that got done: the baselines' bodies.
      const kept: { bodies?: OperatorBodies } = {};
      for (let i = 1; i <= o.runs; i++) {
        // A run that fails (a timeout, a subject that exits) is reported and left out; the others count.
        // Ours, then the Go operator, run after run: both see the same drift of the machine's load.
        for (const [s, wl, to] of [
          ...(ours ? [[spec, w, runs] as const] : []),
          ...(goSide && goW ? [[goSide.spec, goW, goRuns] as const] : []),
        ]) {
          progress(`${s.name}: run ${i}/${o.runs} (${machineLoad()})`);
          addTo(i - 1, { 'load average (1 min) at the run start': { value: loadOne() } }, to);
          addTo(
            i - 1,
            await runOnce(wl, s, opts, to === runs ? kept : undefined).catch(failed(`${s.name} run ${i}`)),
            to,
          );
        }
      }
      const limit = o.subjectCmd || !ours ? undefined : chartMemoryLimitMiB(dir);
      if (limit) addTo(0, { 'chart: memory limit (MiB)': { value: limit } });
      if (o.floor && ours && !o.subjectCmd && !o.runtime) {
        progress(`${spec.name}: bare node floor (${machineLoad()})`);
        addTo(0, await runFloor(bareNode(dir), opts).catch(failed('floor')));
        addTo(0, await runLoadFloor(codeLoaded(dir)).catch(failed('code-loaded floor')));
      }
      if (o.maxima && ours && w.applyMaxima) {
        progress(`${spec.name}: one instance at the CRD maxima (${machineLoad()})`);
        addTo(0, await runMaxima(w, spec, opts).catch(failed('maxima run')));
      }
      if (o.scale > 0 && w.namespaced && dir === 'keystone') {
        for (let i = 1; i <= o.scaleRuns; i++) {
          if (o.baseline) {
            progress(`control plane alone: ${o.scale} instances, run ${i}/${o.scaleRuns} (${machineLoad()})`);
            addTo(
              i - 1,
              { [`${o.scale}: control plane alone, load at start`]: { value: loadOne() } },
              baseRuns,
            );
            addTo(
              i - 1,
              await runControlPlaneAlone(w, o.scale, opts, kept.bodies).catch(failed(`baseline run ${i}`)),
              baseRuns,
            );
          }
          // Ours and the Go operator against the same control plane alone, one after the other.
          const alone = baseRuns[i - 1]?.[`${o.scale}: control plane alone (s)`]?.value;
          for (const [s, wl, to] of [
            ...(ours ? [[spec, w, runs] as const] : []),
            ...(goSide && goW ? [[goSide.spec, goW, goRuns] as const] : []),
          ]) {
            progress(`${s.name}: ${o.scale} instances, run ${i}/${o.scaleRuns} (${machineLoad()})`);
            addTo(i - 1, { [`${o.scale}: load at start`]: { value: loadOne() } }, to);
            const keep: { instance?: KubeObject; watches?: string[] } = {};
            addTo(
              i - 1,
              await runScale(wl, s, o.scale, opts, to === runs ? keep : undefined).catch(
                failed(`${s.name} scale run ${i}`),
              ),
              to,
            );
            const all = to[i - 1]?.[`${o.scale}: apply → all done (s)`]?.value;
            if (alone && all)
              addTo(i - 1, { [`${o.scale}: ÷ control plane alone`]: { value: all / alone } }, to);
            // On cores the control plane keeps busy, the subject's own CPU is time the control plane waits.
            const own = to[i - 1]?.[`${o.scale}: CPU (s)`]?.value;
            if (alone && own !== undefined)
              addTo(
                i - 1,
                {
                  [`${o.scale}: own CPU ÷ cores ÷ control plane alone`]: {
                    value: own / CORES / alone,
                    detail: `${own.toFixed(1)} CPU-s of the subject ÷ ${CORES} cores ÷ ${alone.toFixed(1)} s of the control plane alone`,
                  },
                },
                to,
              );
            // The floor of that ratio: the control plane alone plus our operator's other writes.
            if (alone && keep.instance) {
              progress(
                `control plane with the operator's writes and watches: ${o.scale} instances (${machineLoad()})`,
              );
              const floor: RunFigures = await runOperatorWritesFloor(
                w,
                o.scale,
                opts,
                keep.instance,
                kept.bodies,
                keep.watches,
              ).catch(failed(`floor run ${i}`));
              addTo(i - 1, floor, to);
              const withWrites =
                floor[`${o.scale}: control plane with the operator's writes and watches (s)`]?.value;
              if (withWrites)
                addTo(
                  i - 1,
                  { [`${o.scale}: floor ÷ control plane alone`]: { value: withWrites / alone } },
                  to,
                );
              // The floor run's time already holds its client's CPU (the bench's) and the
              // watches' process: what the operator's run spends on the client side beyond those
              // is the share to compare.
              const benchOurs = to[i - 1]?.[`${o.scale}: the bench's CPU (s)`]?.value;
              const ofFloor = (figure: string) =>
                floor[`${o.scale}: control plane with the operator's writes and watches, ${figure}`]?.value;
              const benchFloor = ofFloor("the bench's CPU (s)");
              const floorClient = (benchFloor ?? 0) + (ofFloor("the watches' CPU (s)") ?? 0);
              if (own !== undefined && benchOurs !== undefined && benchFloor !== undefined)
                addTo(
                  i - 1,
                  {
                    [`${o.scale}: client CPU beyond the floor run's ÷ cores ÷ control plane alone`]: {
                      value: (own + benchOurs - floorClient) / CORES / alone,
                      detail: `(${own.toFixed(1)} CPU-s of the subject + ${benchOurs.toFixed(1)} of the bench beside it − ${floorClient.toFixed(1)} of the bench and the watches in the floor run) ÷ ${CORES} cores ÷ ${alone.toFixed(1)} s`,
                    },
                  },
                  to,
                );
            }
          }
        }
      }
      const goResult = goSide ? { name: goSide.spec.name, runs: goRuns } : undefined;
      if (ours) results.push({ name: spec.name, runs, ...(goResult ? { go: goResult } : {}) });
      else if (goResult) results.push(goResult);
      writeFileSync(join(outDir, 'results.json'), `${JSON.stringify({ started, results }, null, 2)}\n`);
    }
  } finally {
    await stopCluster(o.cluster, { purge: true }).catch(() => undefined);
  }
  const out = [
    `stackops bench, ${started.toISOString()}: ${o.runs} run(s) per operator on a fresh kube-env cluster each (1 kwok node),`,
    `idle window ${o.idleSeconds} s (idle figures scaled to 5 min), ${CORES} cores shared with whatever else runs;`,
    `${loadBefore} before, ${machineLoad()} after. Medians of noisy runs: compare medians, not single runs.`,
    ...(go.note ? [go.note] : []),
    '',
    renderTable(TABLE_HEADER, results.flatMap(summaryTable)),
    '',
    'Requests by verb and resource (last run):',
    ...results.flatMap((r) => [r, ...(r.go ? [r.go] : [])]).flatMap(details),
    '',
    'Where the time went (last run; from the audit log: each Job and Deployment from its creation through the',
    "controller-manager, the scheduler and kwok to done, and the client's waits between them):",
    ...results.flatMap((r) => [r, ...(r.go ? [r.go] : [])]).flatMap(timelines),
    '',
  ].join('\n');
  process.stdout.write(out);
  writeFileSync(join(outDir, 'report.txt'), out);
}

main().catch((err: unknown) => {
  process.stderr.write(`stackops-bench: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
