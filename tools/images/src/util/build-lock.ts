import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Moves a dead build's lock aside (rename is atomic: one waiter wins) and puts it back if what it
 * moved was in fact a live build's fresh lock.
 */
function takeOver(lockDir: string, deadPid: number): void {
  const aside = `${lockDir}.${process.pid}`;
  try {
    renameSync(lockDir, aside);
  } catch {
    return;
  }
  let moved = Number.NaN;
  try {
    moved = Number(readFileSync(join(aside, 'pid'), 'utf8'));
  } catch {}
  if (moved !== deadPid && Number.isInteger(moved) && running(moved)) {
    try {
      renameSync(aside, lockDir);
      return;
    } catch {}
  }
  rmSync(aside, { recursive: true, force: true });
}

/** Builds of this process, per output folder: the lock below only tells processes apart. */
const inProcess = new Map<string, Promise<unknown>>();

/**
 * Serialises builds into one output folder across processes (two test runs, `make images` beside a
 * test): `mkdir` is atomic, and the owner's pid inside lets a later build take over the lock of a
 * build that was killed.
 */
export function withBuildLock<T>(
  outDir: string,
  onWait: (pid: number) => void,
  body: () => Promise<T>,
): Promise<T> {
  const previous = inProcess.get(outDir) ?? Promise.resolve();
  const next = previous.catch(() => {}).then(() => withProcessLock(outDir, onWait, body));
  inProcess.set(outDir, next);
  return next;
}

async function withProcessLock<T>(
  outDir: string,
  onWait: (pid: number) => void,
  body: () => Promise<T>,
): Promise<T> {
  const lockDir = join(outDir, '.lock');
  const pidFile = join(lockDir, 'pid');
  mkdirSync(outDir, { recursive: true });
  let told = false;
  for (;;) {
    try {
      mkdirSync(lockDir);
      writeFileSync(pidFile, String(process.pid));
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    let holder = Number.NaN;
    try {
      holder = Number(readFileSync(pidFile, 'utf8'));
    } catch {
      // The holder has made the directory but not yet written its pid.
    }
    if (Number.isInteger(holder) && holder > 0 && !running(holder)) {
      takeOver(lockDir, holder);
      continue;
    }
    if (!told && Number.isInteger(holder)) {
      told = true;
      onWait(holder);
    }
    await delay(250);
  }
  try {
    return await body();
  } finally {
    rmSync(lockDir, { recursive: true, force: true });
  }
}
