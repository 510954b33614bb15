import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { clusterLayout } from '../src/cluster/layout.js';
import { cgroupRoot, netnsPath } from '../src/node/network.js';
import { mountPoints } from '../src/node/teardown.js';
import { isAlive } from '../src/util/process-alive.js';

const packageDir = fileURLToPath(new URL('..', import.meta.url));

// The child process runs the built package, so make sure dist/ is current.
beforeAll(() => {
  execFileSync(process.execPath, [fileURLToPath(import.meta.resolve('typescript/bin/tsc')), '-b'], {
    cwd: packageDir,
  });
}, 120_000);

/** Starts a private control plane in a child Node process and resolves with its pids once it is ready. */
function startInChild(name: string, extra: Record<string, unknown> = { nodes: 1 }) {
  const options = JSON.stringify({ name, fresh: true, ephemeral: true, ...extra });
  const script = `
    import { startControlPlane } from './dist/index.js';
    const cp = await startControlPlane(${options});
    console.log(JSON.stringify(Object.values(cp.handle.state.components).map((c) => c.pid)));
    setInterval(() => {}, 1000);
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    cwd: packageDir,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const pids = new Promise<number[]>((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', (line) => resolve(JSON.parse(line) as number[]));
    child.once('exit', (code) => reject(new Error(`child exited early with ${code}`)));
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return { child, pids, exited };
}

async function allGone(pids: number[], timeoutMs = 10_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!pids.some(isAlive)) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

describe('a control plane started by a process dies with it', () => {
  const cases = [
    { signal: 'SIGTERM', how: 'its signal handler stops' },
    { signal: 'SIGINT', how: 'its signal handler stops' },
    { signal: 'SIGKILL', how: 'the watchdog stops' },
  ] as const;
  for (const { signal, how } of cases) {
    it(`on ${signal}, ${how} every component and removes a private cluster's state`, {
      timeout: 120_000,
    }, async () => {
      const name = `kube-env-signal-${signal.toLowerCase()}-${process.pid}`;
      const { child, pids, exited } = startInChild(name);
      const started = await pids;
      expect(started).toHaveLength(5);
      expect(started.every(isAlive)).toBe(true);
      child.kill(signal);
      await exited;
      expect(await allGone(started)).toBe(true);
      await waitForRemoval(clusterLayout(name).root);
      expect(existsSync(clusterLayout(name).root)).toBe(false);
    });
  }
});

async function waitForRemoval(path: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (existsSync(path) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
}

describe('a real node started by a process dies with it', () => {
  it('on SIGKILL, the watchdog tears the node down: processes, mounts, namespace, cgroups', {
    timeout: 180_000,
  }, async () => {
    const name = `kube-env-signal-real-${process.pid}`;
    const { child, pids, exited } = startInChild(name, { nodes: 0, realNode: true });
    const started = await pids;
    expect(started).toHaveLength(11);
    expect(existsSync(netnsPath(name))).toBe(true);
    child.kill('SIGKILL');
    await exited;
    expect(await allGone(started, 20_000)).toBe(true);
    await waitForRemoval(clusterLayout(name).root, 20_000);
    expect(existsSync(clusterLayout(name).root)).toBe(false);
    expect(existsSync(netnsPath(name))).toBe(false);
    expect(existsSync(`/sys/fs/cgroup/memory${cgroupRoot(name)}`)).toBe(false);
    const mounts = mountPoints(readFileSync('/proc/self/mountinfo', 'utf8'));
    expect(mounts.filter((m) => m.path.startsWith(clusterLayout(name).root))).toEqual([]);
  });
});
