import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { isAlive } from '../util/process-alive.js';
import { formatCommand } from '../util/run.js';

export interface ProcessSpec {
  name: string;
  command: readonly string[];
  logFile: string;
  pidFile: string;
  cwd: string;
  /**
   * Runs the command through this prefix, which must exec it in the same process (e.g.
   * `nsenter --net=…`): the pid is then the command's, and so is its /proc/<pid>/cmdline.
   */
  launcher?: readonly string[];
  /** Called with the pid right after the spawn (e.g. to move the process into a cgroup). */
  onSpawn?: (pid: number) => void;
}

export interface StartedProcess {
  readonly name: string;
  readonly pid: number;
  readonly command: readonly string[];
  readonly logFile: string;
  /** Set once the process has exited (only known for processes this Node process started). */
  exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
}

/**
 * Starts a component in its own process group (detached), its stdout and stderr appended to its
 * log file, and records its pid so that `down` from another process can stop it. The child is
 * unref'd: the caller decides whether it outlives this process (CLI `up`) or not (tests).
 */
export function startProcess(spec: ProcessSpec): StartedProcess {
  const [file, ...args] = [...(spec.launcher ?? []), ...spec.command];
  if (file === undefined) throw new Error(`${spec.name}: empty command`);
  const fd = openSync(spec.logFile, 'a');
  writeSync(fd, `\n===== ${new Date().toISOString()} ${formatCommand(spec.command)}\n`);
  try {
    const child = spawn(file, args, { cwd: spec.cwd, detached: true, stdio: ['ignore', fd, fd] });
    if (child.pid === undefined) throw new Error(`${spec.name}: could not start ${file}`);
    const started: StartedProcess = {
      name: spec.name,
      pid: child.pid,
      command: spec.command,
      logFile: spec.logFile,
      exit: undefined,
    };
    child.on('exit', (code, signal) => {
      started.exit = { code, signal };
    });
    child.on('error', () => {
      started.exit ??= { code: null, signal: null };
    });
    child.unref();
    writeFileSync(spec.pidFile, `${child.pid}\n`);
    spec.onSpawn?.(child.pid);
    return started;
  } finally {
    closeSync(fd);
  }
}

export function readPid(pidFile: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(pidFile, 'utf8'), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** The pid still runs the executable we started (guards against a recycled pid after a reboot or crash). */
export function runsExecutable(pid: number, executable: string): boolean {
  try {
    const argv0 = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0];
    return argv0 === executable;
  } catch {
    return false;
  }
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      // already gone
    }
  }
}

async function waitForExit(pid: number, executable: string, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!isAlive(pid) || !runsExecutable(pid, executable)) return true;
    await sleep(50);
  }
  return false;
}

/**
 * SIGTERM to the process group, SIGKILL after `graceMs`. Only signals the pid if it still runs the
 * executable recorded for it. Removes the pid file.
 */
export async function stopProcess(pidFile: string, executable: string, graceMs = 10_000): Promise<void> {
  const pid = readPid(pidFile);
  if (pid !== undefined && isAlive(pid) && runsExecutable(pid, executable)) {
    signalGroup(pid, 'SIGTERM');
    if (!(await waitForExit(pid, executable, graceMs))) {
      signalGroup(pid, 'SIGKILL');
      await waitForExit(pid, executable, 5000);
    }
  }
  rmSync(pidFile, { force: true });
}

/** Synchronous, for process exit handlers: signal the groups, no waiting. */
export function signalNow(pids: readonly number[], signal: NodeJS.Signals): void {
  for (const pid of pids) signalGroup(pid, signal);
}
