import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitUntil } from '@stackops/lib-common/testing';

/**
 * keystone-operator as the separate process it is in production (its own `main.js`, found through
 * the installed package), watching the test's namespaces. Placement only ever talks to it through
 * the API server, so the test needs nothing else from it.
 */
export interface KeystoneOperatorProcess {
  /** The process' output so far (for failure messages). */
  output(): string;
  stop(): Promise<void>;
}

const mainJs = (): string =>
  join(dirname(fileURLToPath(import.meta.resolve('@stackops/keystone-operator'))), 'main.js');

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      srv.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

export async function startKeystoneOperator(namespaces: string[]): Promise<KeystoneOperatorProcess> {
  const port = await freePort();
  let out = '';
  const child: ChildProcess = spawn(
    process.execPath,
    [
      mainJs(),
      `--watch-namespace=${namespaces.join(',')}`,
      `--health-probe-bind-address=127.0.0.1:${port}`,
      '--metrics-bind-address=0',
      `--log-level=${process.env['LOG_LEVEL'] ?? 'warn'}`,
    ],
    { env: process.env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  child.stdout?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  child.stderr?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  };
  try {
    await waitUntil(
      'keystone-operator ready',
      async () => {
        if (child.exitCode !== null)
          throw new Error(`keystone-operator exited with ${child.exitCode}:\n${out}`);
        const res = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined);
        return res?.ok;
      },
      { timeoutMs: 60_000 },
    );
  } catch (err) {
    await stop();
    throw new Error(`${err instanceof Error ? err.message : String(err)}\n${out}`);
  }
  return { output: () => out, stop };
}
