import { readFileSync } from 'node:fs';

/**
 * True when a process with this pid exists and has not exited: signal 0 checks without sending
 * anything, and a zombie (exited, not yet reaped by its parent) counts as gone.
 */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  try {
    // The state follows the command name, which is in parentheses and may itself contain ") ".
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    // No /proc (not Linux) or the process is gone: kill() already answered for the former.
    return process.platform !== 'linux';
  }
}
