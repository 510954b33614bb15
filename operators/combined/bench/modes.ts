/**
 * Idle RSS and start-up of the four operators run separately (four bundles, four processes) and
 * combined (this package's bundle, one process), against a real API server, alternating modes:
 *
 *   node operators/combined/bench/modes.ts --kubeconfig <path> [--runs 3] [--idle 15]
 *
 * The operators' CRDs must be installed (kubectl apply --server-side -f charts/<x>-operator/crds/, and
 * sip's BareMetalHost CRD). Start-up = spawn until every process's /readyz answers 200 (informers
 * synced); idle RSS = the sum of VmRSS after `--idle` seconds. The bundles must exist
 * (`npx nx run-many -t bundle`). Prints each run and the medians (ADR 0044).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    kubeconfig: { type: 'string' },
    runs: { type: 'string', default: '3' },
    idle: { type: 'string', default: '15' },
  },
});
if (!values.kubeconfig) throw new Error('--kubeconfig is required');
const root = resolve(import.meta.dirname, '../../..');
const bundle = (dir: string) => resolve(root, 'operators', dir, 'bundle/main.mjs');
// As the charts' NODE_OPTIONS give them (the images add no flags of their own).
const nodeFlags = ['--max-semi-space-size=2'];
const env = {
  ...process.env,
  KUBECONFIG: values.kubeconfig,
  OPERATOR_NAMESPACE: 'default',
  LOG_LEVEL: 'warn',
};

interface Proc {
  child: ChildProcess;
  probe: number;
}

function start(entry: string, port: number, args: string[] = []): Proc {
  const child = spawn(
    process.execPath,
    [
      ...nodeFlags,
      entry,
      ...args,
      `--metrics-bind-address=127.0.0.1:${port}`,
      `--health-probe-bind-address=127.0.0.1:${port + 1}`,
    ],
    { env, stdio: ['ignore', 'ignore', 'inherit'] },
  );
  return { child, probe: port + 1 };
}

async function ready(p: Proc): Promise<void> {
  for (;;) {
    const ok = await fetch(`http://127.0.0.1:${p.probe}/readyz`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) return;
    if (p.child.exitCode !== null) throw new Error(`exited ${p.child.exitCode}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

const rssMiB = (p: Proc): number => {
  const status = readFileSync(`/proc/${p.child.pid}/status`, 'utf8');
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1]) / 1024;
};

async function stop(procs: Proc[]): Promise<void> {
  await Promise.all(
    procs.map(
      (p) =>
        new Promise<void>((done) => {
          p.child.once('exit', () => done());
          p.child.kill('SIGTERM');
        }),
    ),
  );
}

async function run(mode: 'separate' | 'combined'): Promise<{ readyMs: number; rssMiB: number }> {
  const t0 = performance.now();
  const procs =
    mode === 'combined'
      ? [start(bundle('combined'), 18100)]
      : ['keystone', 'placement', 'network-addons', 'sip'].map((o, i) => start(bundle(o), 18110 + 2 * i));
  await Promise.all(procs.map(ready));
  const readyMs = performance.now() - t0;
  await new Promise((r) => setTimeout(r, Number(values.idle) * 1000));
  const rss = procs.reduce((sum, p) => sum + rssMiB(p), 0);
  await stop(procs);
  return { readyMs, rssMiB: rss };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
const results: Record<string, { readyMs: number; rssMiB: number }[]> = { separate: [], combined: [] };
for (let i = 0; i < Number(values.runs); i++)
  for (const mode of ['separate', 'combined'] as const) {
    const r = await run(mode);
    results[mode]?.push(r);
    console.log(
      `${mode} run ${i + 1}: ready ${r.readyMs.toFixed(0)} ms, idle RSS ${r.rssMiB.toFixed(1)} MiB`,
    );
  }
const [load] = readFileSync('/proc/loadavg', 'utf8').split(' ');
for (const [mode, rs] of Object.entries(results))
  console.log(
    `${mode}: median ready ${median(rs.map((r) => r.readyMs)).toFixed(0)} ms, median idle RSS ${median(rs.map((r) => r.rssMiB)).toFixed(1)} MiB (load ${load})`,
  );
