import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { buildWorkloadImages, type WorkloadImageName } from '@stackops/images/workloads';
import { loadImages } from '@stackops/kube-env';
import { inject } from 'vitest';

const execFileP = promisify(execFile);
const netnsPath = inject('netnsPath');

/** The stand-in images SIP's services and its tests run (built or from the cache), loaded into the real node. */
export async function loadSipImages(
  cluster: string,
): Promise<Record<'haproxy' | 'jumphost' | 'sushy', string>> {
  const { images } = await buildWorkloadImages();
  const wanted: WorkloadImageName[] = ['haproxy', 'jumphost', 'sushy'];
  await loadImages(
    cluster,
    wanted.map((w) => images[w].built.archive),
  );
  return { haproxy: images.haproxy.name, jumphost: images.jumphost.name, sushy: images.sushy.name };
}

/** A command inside the real node's network namespace; resolves with its exit code, stdout and stderr. */
export async function inNode(
  argv: string[],
  timeoutMs = 30_000,
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await execFileP('nsenter', [`--net=${netnsPath}`, '--', ...argv], {
      timeout: timeoutMs,
      maxBuffer: 16 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number | string; stdout?: string; stderr?: string; message: string };
    return {
      code: typeof e.code === 'number' ? e.code : -1,
      stdout: e.stdout ?? '',
      stderr: e.stderr || e.message,
    };
  }
}

/** Like inNode, but a non-zero exit is an error carrying stderr. */
export async function inNodeOk(argv: string[], timeoutMs?: number): Promise<string> {
  const r = await inNode(argv, timeoutMs);
  if (r.code !== 0) throw new Error(`${argv.join(' ')} exited with ${r.code}: ${r.stderr}${r.stdout}`);
  return r.stdout;
}

/** A long-running process in the node's namespace, once it printed `ready`; its output is kept. */
export interface NodeProcess {
  child: ChildProcess;
  output: () => string;
  stop: () => Promise<void>;
}

export function startInNode(argv: string[], timeoutMs = 30_000): Promise<NodeProcess> {
  const child = spawn('nsenter', [`--net=${netnsPath}`, '--', ...argv], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
  });
  child.stderr.on('data', (d: Buffer) => {
    out += d.toString();
  });
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGKILL');
    });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`${argv.join(' ')}: not ready after ${timeoutMs} ms: ${out}`));
    }, timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${argv.join(' ')} exited with ${code}: ${out}`));
    });
    child.stdout.on('data', () => {
      if (/^ready$/m.test(out)) {
        clearTimeout(timer);
        child.removeAllListeners('exit');
        resolve({ child, output: () => out, stop });
      }
    });
  });
}
