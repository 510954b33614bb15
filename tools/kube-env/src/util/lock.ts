import { closeSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { isAlive } from './process-alive.js';

export interface FileLock {
  release(): void;
}

export interface LockOptions {
  /** Called once, when the lock is first found held by another live process. */
  onWait?: (holderPid: number) => void;
  /** Give up after this long (default: wait forever). */
  timeoutMs?: number;
  pollMs?: number;
}

/**
 * An exclusive lock between processes: a file created with O_EXCL holding the owner's pid.
 * A lock whose owner has died is taken over, so a killed build never blocks the next one.
 */
export async function acquireLock(path: string, options: LockOptions = {}): Promise<FileLock> {
  mkdirSync(dirname(path), { recursive: true });
  const started = Date.now();
  let reportedWait = false;
  for (;;) {
    if (tryCreate(path)) return ownedLock(path);
    const holder = readHolder(path);
    if (holder !== undefined && !isAlive(holder)) {
      takeOverStale(path, holder);
      continue;
    }
    if (holder !== undefined && !reportedWait) {
      reportedWait = true;
      options.onWait?.(holder);
    }
    if (options.timeoutMs !== undefined && Date.now() - started > options.timeoutMs) {
      throw new Error(
        `timed out after ${options.timeoutMs} ms waiting for lock ${path} (held by pid ${holder})`,
      );
    }
    await sleep(options.pollMs ?? 200);
  }
}

function tryCreate(path: string): boolean {
  try {
    const fd = openSync(path, 'wx');
    writeSync(fd, String(process.pid));
    closeSync(fd);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

function readHolder(path: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(path, 'utf8'), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    // Gone between our open and read, or still empty while its owner writes it: retry.
    return undefined;
  }
}

/**
 * Moves the stale file aside (rename is atomic, so only one waiter wins) and checks that what was
 * moved is still the dead owner's lock; if a live process re-created it meanwhile, put it back.
 */
function takeOverStale(path: string, deadPid: number): void {
  const aside = `${path}.stale.${process.pid}`;
  try {
    renameSync(path, aside);
  } catch {
    return;
  }
  const moved = readHolder(aside);
  if (moved !== deadPid && moved !== undefined && isAlive(moved)) {
    try {
      renameSync(aside, path);
    } catch {
      // The path was taken again meanwhile; the live owner keeps its (renamed) lock semantics.
    }
    return;
  }
  rmSync(aside, { force: true });
}

function ownedLock(path: string): FileLock {
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    process.off('exit', release);
    if (readHolder(path) === process.pid) rmSync(path, { force: true });
  };
  process.on('exit', release);
  return { release };
}
