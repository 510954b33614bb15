import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { type ProcSample, sample } from './proc.js';

/**
 * The process under measurement, described from outside: a command line, its environment, and how
 * to tell it is ready. `{kubeconfig}`, `{probePort}` and `{metricsPort}` in the command, the
 * environment and the ready URL are replaced by the run's values.
 */
export interface SubjectSpec {
  /** Shown in the report, e.g. `keystone-operator` or `keystone-operator (go)`. */
  name: string;
  command: string[];
  env?: Record<string, string>;
  /** Polled until it answers 2xx (default `http://127.0.0.1:{probePort}/readyz`). */
  readyUrl?: string;
  /** The measured process's requests in the audit log: user agents matching this (default: every non-control-plane agent). */
  userAgent?: RegExp;
}

export interface RunningSubject {
  pid: number;
  /** spawn → first 2xx of the ready URL, seconds. */
  readySeconds: number;
  sample(): ProcSample;
  /** SIGTERM, then SIGKILL after 15 s; resolves when it has exited. */
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      srv.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

const fill = (text: string, values: Record<string, string>) =>
  text.replace(/\{(kubeconfig|probePort|metricsPort)\}/g, (_, k: string) => values[k] ?? '');

async function answers(url: string): Promise<boolean> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(1000) });
    await res.arrayBuffer();
    return res.ok;
  } catch {
    return false;
  }
}

/**
 * The subject's environment: the bench's own without node's variables (`NODE_*`), which a pod of
 * the charts does not have (the images set `PATH` and `NODE_ENV`, the charts no `NODE_*`), then what
 * the spec sets. A shell's `NODE_EXTRA_CA_CERTS` made node read a CA bundle at the first TLS
 * context: ~12 ms of CPU to ready that no deployed operator spends; `NODE_OPTIONS` would add flags.
 */
export function subjectEnv(
  parent: NodeJS.ProcessEnv,
  set: Readonly<Record<string, string>> = {},
  values: Readonly<Record<string, string>> = {},
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(parent)) if (!k.startsWith('NODE_')) env[k] = v;
  for (const [k, v] of Object.entries(set)) env[k] = fill(v, values);
  return env;
}

/**
 * Spawns the subject (its output appended to `logFile`) and polls its ready URL every 5 ms, so
 * spawn → ready is measured to about that. Fails if it exits first or is not ready in `timeoutMs`.
 */
export async function startSubject(
  spec: SubjectSpec,
  opts: { kubeconfig: string; logFile: string; timeoutMs?: number },
): Promise<RunningSubject> {
  const probePort = await freePort();
  let metricsPort = await freePort();
  while (metricsPort === probePort) metricsPort = await freePort();
  const values = {
    kubeconfig: opts.kubeconfig,
    probePort: String(probePort),
    metricsPort: String(metricsPort),
  };
  const [command, ...args] = spec.command.map((a) => fill(a, values));
  if (!command) throw new Error(`${spec.name}: empty command`);
  const env = subjectEnv(process.env, { KUBECONFIG: opts.kubeconfig, ...spec.env }, values);
  const url = fill(spec.readyUrl ?? 'http://127.0.0.1:{probePort}/readyz', values);

  // One poll before the spawn (nothing listens yet): the first fetch loads node's HTTP client,
  // CPU that would otherwise compete with the subject's own start on the same cores.
  await answers(url);
  const log = openSync(opts.logFile, 'a');
  const started = performance.now();
  const child: ChildProcess = spawn(command, args, { env, stdio: ['ignore', log, log] });
  closeSync(log);
  let exited: string | undefined;
  const exit = new Promise<void>((resolve) => {
    child.on('exit', (code, signal) => {
      exited = signal ? `signal ${signal}` : `code ${code}`;
      resolve();
    });
    child.on('error', (err) => {
      exited = err.message;
      resolve();
    });
  });
  const stop = async () => {
    if (exited) return;
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exit;
    clearTimeout(killer);
  };
  const deadline = started + (opts.timeoutMs ?? 60_000);
  for (;;) {
    if (exited) throw new Error(`${spec.name} exited (${exited}) before it was ready; see ${opts.logFile}`);
    if (await answers(url)) break;
    if (performance.now() > deadline) {
      await stop();
      throw new Error(`${spec.name} was not ready at ${url} in time; see ${opts.logFile}`);
    }
    await sleep(5);
  }
  const readySeconds = (performance.now() - started) / 1000;
  const pid = child.pid ?? -1;
  return { pid, readySeconds, sample: () => sample(pid), stop };
}
