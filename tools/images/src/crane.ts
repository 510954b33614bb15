import { type ChildProcess, spawn } from 'node:child_process';
import { exec } from './util/exec.js';

/**
 * crane (go-containerregistry) at the version kube-env pins and builds into its binary cache.
 * STACKOPS_CRANE=<path> uses another crane (e.g. one a release pipeline already has).
 */
export async function locateCrane(progress: (line: string) => void): Promise<Crane> {
  const override = process.env.STACKOPS_CRANE;
  if (override) return new Crane(override);
  const { ensureBinary } = await import('@stackops/kube-env');
  return new Crane(await ensureBinary('crane', { progress }));
}

export class Crane {
  constructor(readonly path: string) {}

  run(args: readonly string[], input?: string): Promise<string> {
    return exec([this.path, ...args], input === undefined ? {} : { input });
  }

  /** `crane version`: "v0.22.1". */
  async version(): Promise<string> {
    return (await this.run(['version'])).trim();
  }
}

/** `crane registry serve` on 127.0.0.1, in memory: where images are assembled, then pulled to disk. */
export interface LoopbackRegistry {
  /** host:port, for references such as `${host}/stackops/base:…`. */
  readonly host: string;
  stop(): Promise<void>;
}

export function startRegistry(crane: Crane, timeoutMs = 15_000): Promise<LoopbackRegistry> {
  const child = spawn(crane.path, ['registry', 'serve', '--address', '127.0.0.1:0'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const killOnExit = () => child.kill('SIGKILL');
  process.on('exit', killOnExit);
  let log = '';
  return new Promise((resolve, reject) => {
    const fail = (why: string) => {
      clearTimeout(timer);
      process.off('exit', killOnExit);
      child.kill('SIGKILL');
      reject(new Error(`crane registry serve: ${why}\n${log.trim()}`));
    };
    const timer = setTimeout(() => fail(`no "serving on port" line within ${timeoutMs} ms`), timeoutMs);
    child.on('error', (error) => fail(error.message));
    child.on('exit', (code) => fail(`exited with ${code} before serving`));
    child.stderr?.on('data', (chunk: Buffer) => {
      log += chunk.toString('utf8');
      const port = /serving on port (\d+)/.exec(log)?.[1];
      if (port === undefined) return;
      clearTimeout(timer);
      child.removeAllListeners('exit');
      // Requests are logged on stderr: keep draining it so the registry never blocks on a full pipe.
      child.stderr?.removeAllListeners('data');
      child.stderr?.resume();
      resolve({ host: `127.0.0.1:${port}`, stop: () => stopChild(child, killOnExit) });
    });
  });
}

function stopChild(child: ChildProcess, killOnExit: () => void): Promise<void> {
  process.off('exit', killOnExit);
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}
