#!/usr/bin/env node
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { stopCluster } from '@stackops/kube-env';
import { preparedCluster, until } from './runner.js';
import { summarize } from './stats.js';
import { startSubject } from './subject.js';
import { type OperatorDir, operatorDirs, workloads } from './workloads.js';

/**
 * Start-up of two or more builds of one operator, side by side: each bundle directory (a copy of
 * `operators/<dir>/bundle`, e.g. one built from main and one from a change) is spawned in turn,
 * the order alternating, on one cluster with the workload's CRDs and inputs — and its instance done
 * when `--instances` — and timed from spawn to /readyz, with the CPU the process used by then (the
 * scheduler's count, every thread). Start-up CPU drifts with the machine by more than most changes
 * move it; alternating starts on one cluster compare builds under the same drift.
 *
 * Usage: starts [--operator combined] [--pairs 10] [--instances] <bundle dir> <bundle dir>...
 */
export interface StartsOptions {
  operator: OperatorDir;
  pairs: number;
  instances: boolean;
  bundles: string[];
}

export function parseStartsArgs(argv: readonly string[]): StartsOptions {
  const o: StartsOptions = { operator: 'combined', pairs: 10, instances: false, bundles: [] };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (arg === '--operator') {
      const dir = argv[++i] ?? '';
      if (!(operatorDirs as readonly string[]).includes(dir))
        throw new Error(`--operator: one of ${operatorDirs.join(', ')}, not "${dir}"`);
      o.operator = dir as OperatorDir;
    } else if (arg === '--pairs') {
      o.pairs = Number(argv[++i]);
      if (!Number.isInteger(o.pairs) || o.pairs < 1) throw new Error('--pairs: a whole number ≥ 1');
    } else if (arg === '--instances') o.instances = true;
    else if (arg.startsWith('--')) throw new Error(`unknown option ${arg}`);
    else o.bundles.push(arg);
  }
  if (o.bundles.length < 2)
    throw new Error(
      'usage: starts [--operator combined] [--pairs 10] [--instances] <bundle dir> <bundle dir>...',
    );
  return o;
}

/** One build's starts: spawn → ready and CPU by then, ms, in the order they ran. */
export interface BuildStarts {
  bundle: string;
  wallMs: number[];
  cpuMs: number[];
}

/** Medians of each build, and in how many rounds each used the least CPU to ready. */
export function summarizeStarts(builds: readonly BuildStarts[]): string {
  const wins = builds.map(() => 0);
  const rounds = Math.min(...builds.map((b) => b.cpuMs.length));
  for (let r = 0; r < rounds; r++) {
    const cpu = builds.map((b) => b.cpuMs[r] ?? Number.POSITIVE_INFINITY);
    const least = cpu.indexOf(Math.min(...cpu));
    wins[least] = (wins[least] ?? 0) + 1;
  }
  const list = (xs: readonly number[]) => xs.map((x) => x.toFixed(0)).join(' ');
  return builds
    .map(
      (b, i) =>
        `${b.bundle}: spawn → ready ${summarize(b.wallMs)?.median.toFixed(0)} ms, CPU to ready ${summarize(b.cpuMs)?.median.toFixed(0)} ms (medians of ${b.cpuMs.length}; least CPU in ${wins[i]} of ${rounds} rounds)\n` +
        `  spawn → ready: ${list(b.wallMs)}\n  CPU to ready: ${list(b.cpuMs)}`,
    )
    .join('\n');
}

async function main(): Promise<void> {
  const o = parseStartsArgs(process.argv.slice(2));
  const w = workloads[o.operator];
  const outDir = join('build', 'bench-starts');
  mkdirSync(outDir, { recursive: true });
  const cluster = 'stackops-bench-starts';
  const progress = (line: string) => process.stderr.write(`${line}\n`);
  const { client, kubeconfig, ns } = await preparedCluster(w, { cluster, outDir, progress });
  try {
    const shipped = w.subject('bundle');
    const bundleDir = join('operators', o.operator, 'bundle');
    const spec = (bundle: string) => ({
      ...shipped,
      name: bundle,
      command: shipped.command.map((a) =>
        a.endsWith(join(bundleDir, 'main.mjs')) ? resolve(bundle, 'main.mjs') : a,
      ),
    });
    const log = (i: number) => join(outDir, `build-${i}.log`);
    // The first start on a new cluster pays for what the API server does once; not measured.
    const first = await startSubject(spec(o.bundles[0] ?? ''), { kubeconfig, logFile: log(0) });
    if (o.instances) {
      await w.apply(client, ns);
      await until('the instance to be done', () => w.done(client, ns), 180_000, 200);
    }
    await first.stop();
    const builds: BuildStarts[] = o.bundles.map((bundle) => ({ bundle, wallMs: [], cpuMs: [] }));
    for (let r = 0; r < o.pairs; r++) {
      const order = r % 2 ? [...builds].reverse() : builds;
      for (const b of order) {
        const s = await startSubject(spec(b.bundle), { kubeconfig, logFile: log(builds.indexOf(b)) });
        b.cpuMs.push(s.sample().cpuPrecise * 1000);
        b.wallMs.push(s.readySeconds * 1000);
        // Its first passes and the restart's stop settle before the next start.
        await sleep(1500);
        await s.stop();
        await sleep(500);
      }
      progress(`round ${r + 1}/${o.pairs}`);
    }
    process.stdout.write(`${summarizeStarts(builds)}\n`);
  } finally {
    client.close();
    await stopCluster(cluster, { purge: true }).catch(() => undefined);
  }
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop() ?? '')) {
  main().catch((err: unknown) => {
    process.stderr.write(`starts: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
