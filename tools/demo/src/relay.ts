import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeBoth } from './pipe.js';

export interface ExposedPort {
  /** `http://<host>:<port>`: where pods reach the host's service. */
  url: string;
  /** The namespace-side process. */
  pid: number;
  stop(): Promise<void>;
}

/**
 * Makes a service on the host's 127.0.0.1:<port> reachable from the real node's pods at
 * `<host>:<port>` (the node's IP), without giving the namespace a route out: a listener inside the
 * namespace (relay-netns.js under `nsenter --net`) hands connections over a unix socket, which both
 * namespaces see, to this process, which connects to 127.0.0.1. Stopped by `stop()` or with this process.
 */
export async function exposeHostPort(netnsPath: string, host: string, port: number): Promise<ExposedPort> {
  const dir = mkdtempSync(join(tmpdir(), 'stackops-relay-'));
  const socketPath = join(dir, `${port}.sock`);
  const hostSide: Server = createServer((conn) => pipeBoth(conn, connect(port, '127.0.0.1')));
  await new Promise<void>((resolve, reject) => {
    hostSide.once('error', reject);
    hostSide.listen(socketPath, () => resolve());
  });
  const child: ChildProcess = spawn(
    'nsenter',
    [
      `--net=${netnsPath}`,
      '--',
      process.execPath,
      join(import.meta.dirname, 'relay-netns.js'),
      host,
      String(port),
      socketPath,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    await new Promise<void>((r) => hostSide.close(() => r()));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await new Promise<void>((resolve, reject) => {
      let err = '';
      child.stderr?.on('data', (d) => {
        err += String(d);
      });
      child.stdout?.on('data', (d) => {
        if (String(d).includes('listening')) resolve();
      });
      child.once('exit', (code) =>
        reject(new Error(`the relay into ${netnsPath} exited (${code}): ${err.trim()}`)),
      );
      setTimeout(
        () => reject(new Error(`the relay into ${netnsPath} did not start within 20 s: ${err.trim()}`)),
        20_000,
      );
    });
  } catch (err) {
    await stop();
    throw err;
  }
  process.once('exit', () => child.kill('SIGTERM'));
  return { url: `http://${host}:${port}`, pid: child.pid ?? -1, stop };
}
