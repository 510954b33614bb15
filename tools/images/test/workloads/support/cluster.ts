import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, rmSync } from 'node:fs';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { type ControlPlane, startControlPlane } from '@stackops/kube-env';
import { repoRoot } from '../../../src/source.js';
import { exec } from '../../../src/util/exec.js';

type Json = Record<string, unknown>;

/**
 * A local control plane (kube-env) for the operator-output tests: KUBE_ENV_REUSE=1 reuses the
 * cluster named KUBE_ENV_NAME (left running), otherwise a private one is started and removed.
 */
export async function controlPlane(): Promise<ControlPlane> {
  const progress = (line: string) => process.stderr.write(`[kube-env] ${line}\n`);
  if (process.env.KUBE_ENV_REUSE === '1') {
    return startControlPlane({
      name: process.env.KUBE_ENV_NAME || 'stackops-dev',
      reuse: true,
      detach: true,
      progress,
    });
  }
  return startControlPlane({
    name: `images-workloads-${process.pid}`,
    fresh: true,
    ephemeral: true,
    progress,
  });
}

export class Kubectl {
  constructor(private readonly cp: ControlPlane) {}

  run(args: readonly string[], input?: string): Promise<string> {
    return exec(
      [this.cp.kubectl, `--kubeconfig=${this.cp.kubeconfigPath}`, ...args],
      input === undefined ? {} : { input },
    );
  }

  apply(objects: readonly Json[]): Promise<string> {
    return this.run(
      ['apply', '--server-side', '-f', '-'],
      JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects }),
    );
  }

  async get(kind: string, name: string, namespace: string): Promise<Json | undefined> {
    const out = await this.run(['get', kind, name, '-n', namespace, '-o', 'json', '--ignore-not-found']);
    return out.trim() === '' ? undefined : (JSON.parse(out) as Json);
  }

  /** Polls until the object exists (and `ready` says so), printing what it last saw on timeout. */
  async waitFor(
    kind: string,
    name: string,
    namespace: string,
    ready: (o: Json) => boolean = () => true,
    timeoutMs = 180_000,
  ): Promise<Json> {
    const deadline = Date.now() + timeoutMs;
    let last: Json | undefined;
    while (Date.now() < deadline) {
      last = await this.get(kind, name, namespace);
      if (last && ready(last)) return last;
      await sleep(500);
    }
    throw new Error(
      `${kind} ${namespace}/${name} not there within ${timeoutMs / 1000}s; last seen:\n${JSON.stringify(last, null, 2)}`,
    );
  }

  /** A Secret's or ConfigMap's data, decoded. */
  async data(kind: 'secret' | 'configmap', name: string, namespace: string): Promise<Record<string, string>> {
    const o = await this.waitFor(kind, name, namespace);
    const data = (o['data'] ?? {}) as Record<string, string>;
    return Object.fromEntries(
      Object.entries(data).map(([k, v]) => [
        k,
        kind === 'secret' ? Buffer.from(v, 'base64').toString('utf8') : v,
      ]),
    );
  }
}

export interface OperatorProcess {
  name: string;
  log: string;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * Runs `operators/<dir>/dist/main.js` against the control plane (admin credentials), watching one
 * namespace, its probes and metrics on free ports of 127.0.0.1; waits for /readyz.
 */
export async function startOperator(
  dir: 'keystone' | 'placement',
  cp: ControlPlane,
  namespace: string,
  env: Record<string, string>,
  logDir: string,
): Promise<OperatorProcess> {
  const log = join(logDir, `${dir}-operator.log`);
  const probe = await freePort();
  const metrics = await freePort();
  const fd = openSync(log, 'a');
  const child: ChildProcess = spawn(
    process.execPath,
    [
      join(repoRoot(), 'operators', dir, 'dist', 'main.js'),
      `--kubeconfig=${cp.kubeconfigPath}`,
      `--watch-namespace=${namespace}`,
      `--health-probe-bind-address=127.0.0.1:${probe}`,
      `--metrics-bind-address=127.0.0.1:${metrics}`,
    ],
    { env: { ...process.env, ...env }, stdio: ['ignore', fd, fd] },
  );
  closeSync(fd);
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
    if (exited !== null)
      throw new Error(`${dir}-operator exited with ${exited}:\n${readFileSync(log, 'utf8')}`);
    const ok = await fetch(`http://127.0.0.1:${probe}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return { name: dir, log, stop };
    await sleep(200);
  }
  await stop();
  throw new Error(`${dir}-operator not ready within 60s; see ${log}`);
}

/**
 * Makes a port inside the sandbox's network namespace reachable from this process: a listener on
 * 127.0.0.1:<free port> here, a unix socket in between, and a forwarder inside the namespace that
 * connects to 127.0.0.1:<port> there. (Both sides are loopback; nothing leaves the machine.)
 */
export async function relay(
  netns: string,
  port: number,
  dir: string,
): Promise<{ url: string; close(): Promise<void> }> {
  const socketPath = join(dir, `relay-${port}.sock`);
  rmSync(socketPath, { force: true });
  const inside = `
    const net = require('node:net');
    net.createServer((c) => { const u = net.connect(${port}, '127.0.0.1'); c.pipe(u).pipe(c); u.on('error', () => c.destroy()); c.on('error', () => u.destroy()); })
      .listen(${JSON.stringify(socketPath)});`;
  const forwarder = spawn('nsenter', [`--net=${netns}`, '--', process.execPath, '-e', inside], {
    stdio: 'ignore',
  });
  for (let i = 0; i < 100 && !existsSync(socketPath); i++) await sleep(50);
  const sockets = new Set<Socket>();
  const server: Server = createServer((c) => {
    sockets.add(c);
    const u = createConnection(socketPath);
    c.pipe(u).pipe(c);
    u.on('error', () => c.destroy());
    c.on('error', () => u.destroy());
    c.on('close', () => sockets.delete(c));
  });
  const local = await new Promise<number>((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)),
  );
  return {
    url: `http://127.0.0.1:${local}`,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      forwarder.kill('SIGKILL');
      rmSync(socketPath, { force: true });
    },
  };
}
