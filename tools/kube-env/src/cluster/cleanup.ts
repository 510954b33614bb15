import { rmSync } from 'node:fs';
import { signalNow } from './processes.js';

/**
 * Clusters this process started without `detach`: their process groups are killed when this
 * process exits or receives SIGINT/SIGTERM/SIGHUP, so a test run never leaves a control plane behind.
 */
interface Owned {
  pids: number[];
  /** Remove this state directory too (private clusters). */
  purgeDir: string | undefined;
}

const owned = new Map<string, Owned>();
const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

function cleanUpAll(): void {
  for (const entry of owned.values()) {
    // A throw-away cluster dies at once; a named one gets SIGTERM so etcd shuts down cleanly.
    signalNow(entry.pids, entry.purgeDir ? 'SIGKILL' : 'SIGTERM');
    if (entry.purgeDir) rmSync(entry.purgeDir, { recursive: true, force: true });
  }
  owned.clear();
}

function onSignal(signal: NodeJS.Signals): void {
  cleanUpAll();
  uninstall();
  // Keep the default behaviour (terminate) unless someone else (e.g. vitest) handles the signal.
  if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
}

let installed = false;
function install(): void {
  if (installed) return;
  installed = true;
  process.on('exit', cleanUpAll);
  for (const signal of signals) process.on(signal, onSignal);
}

function uninstall(): void {
  if (!installed) return;
  installed = false;
  process.off('exit', cleanUpAll);
  for (const signal of signals) process.off(signal, onSignal);
}

/** Starts tracking a cluster; returns the (mutable) pid list to append to as components start. */
export function ownCluster(name: string, purgeDir: string | undefined): number[] {
  const entry: Owned = { pids: [], purgeDir };
  owned.set(name, entry);
  install();
  return entry.pids;
}

export function releaseCluster(name: string): void {
  owned.delete(name);
  if (owned.size === 0) uninstall();
}
