import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from './ports.js';

/** An operator of the repository, run as a local process by the demo. */
export interface OperatorProcessSpec {
  /** operators/<dir> */
  dir: 'keystone' | 'placement' | 'network-addons' | 'sip';
  /** The ServiceAccount its chart created, that the process impersonates. */
  serviceAccount: { namespace: string; name: string };
  /** The chart Deployment's container args and env; bind addresses and kubeconfig are replaced. */
  args?: string[];
  env?: Record<string, string>;
}

/** Flags the local process sets itself: it listens on 127.0.0.1 only and uses the demo's kubeconfig. */
// The chart's secure-metrics flags go too: on 127.0.0.1 the operator serves plain HTTP, as printed.
const LOCAL_FLAGS = [
  '--health-probe-bind-address',
  '--metrics-bind-address',
  '--metrics-secure',
  '--metrics-cert-dir',
  '--kubeconfig',
  '--as',
];

export interface RunningOperator {
  dir: string;
  pid: number;
  logFile: string;
  /** `http://127.0.0.1:<port>/metrics`: Prometheus metrics, on loopback only. */
  metricsUrl: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

const repoRoot = resolve(import.meta.dirname, '../../..');

/**
 * Starts `operators/<dir>/dist/main.js` against the cluster, authenticated as the chart's
 * ServiceAccount (`--as system:serviceaccount:<ns>:<name>`), with its Deployment's args and env, so
 * the chart's RBAC and settings are exactly what it gets. Its probes and metrics listen on free ports
 * of 127.0.0.1. Waits for its /readyz; a process that exits early fails, naming its log file.
 */
export async function startOperator(
  spec: OperatorProcessSpec,
  kubeconfig: string,
  logDir: string,
): Promise<RunningOperator> {
  const logFile = join(logDir, `${spec.dir}-operator.log`);
  const probePort = await freePort();
  let metricsPort = await freePort();
  while (metricsPort === probePort) metricsPort = await freePort();
  const metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
  // The log file itself, not a pipe through us: should the demo die, the operator's writes still
  // succeed and its SIGTERM shutdown is not derailed by a broken stdout.
  const logFd = openSync(logFile, 'a');
  const args = [
    join(repoRoot, 'operators', spec.dir, 'dist', 'main.js'),
    ...(spec.args ?? []).filter((a) => !LOCAL_FLAGS.some((f) => a === f || a.startsWith(`${f}=`))),
    `--kubeconfig=${kubeconfig}`,
    `--as=system:serviceaccount:${spec.serviceAccount.namespace}:${spec.serviceAccount.name}`,
    `--health-probe-bind-address=127.0.0.1:${probePort}`,
    `--metrics-bind-address=127.0.0.1:${metricsPort}`,
  ];
  const child = spawn(process.execPath, args, {
    env: { ...process.env, ...spec.env, LOG_FORMAT: 'json', KUBECONFIG: kubeconfig },
    stdio: ['ignore', logFd, logFd],
  });
  closeSync(logFd);
  let exited: number | null = null;
  child.on('exit', (code) => {
    exited = code ?? -1;
  });
  const stop = async () => {
    if (exited !== null) return;
    child.kill('SIGTERM');
    for (let i = 0; i < 100 && exited === null; i++) await sleep(100);
    if (exited === null) child.kill('SIGKILL');
  };
  for (let i = 0; i < 300; i++) {
    if (exited !== null) throw new Error(`${spec.dir}-operator exited with ${exited}; see ${logFile}`);
    if (await ready(probePort))
      return { dir: spec.dir, pid: child.pid ?? -1, logFile, metricsUrl, child, stop };
    await sleep(200);
  }
  await stop();
  throw new Error(`${spec.dir}-operator did not become ready within 60 s; see ${logFile}`);
}

async function ready(port: number): Promise<boolean> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/readyz`);
    return res.ok;
  } catch {
    return false;
  }
}
