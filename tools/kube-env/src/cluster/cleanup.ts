import { spawn } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { nodeLayout } from '../node/layout.js';
import { readNodeRecord, teardownRealNode } from '../node/teardown.js';
import { signalNow } from './processes.js';

/**
 * Clusters this process started without `detach`: their process groups are killed when this
 * process exits or receives SIGINT/SIGTERM/SIGHUP, and a watchdog process does the same if this
 * process dies without a chance to (SIGKILL), so a test run never leaves a control plane behind.
 */
interface Owned {
  pids: number[];
  /** The cluster's folder: a real node's teardown record is looked for there. */
  root: string;
  /** Remove this state directory too (private clusters). */
  purgeDir: string | undefined;
  watchdog: number | undefined;
}

const owned = new Map<string, Owned>();
const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

function stopWatchdog(entry: Owned): void {
  if (entry.watchdog === undefined) return;
  try {
    process.kill(entry.watchdog, 'SIGKILL');
  } catch {
    // already gone
  }
}

function cleanUpAll(): void {
  for (const entry of owned.values()) {
    stopWatchdog(entry);
    // A throw-away cluster dies at once; a named one gets SIGTERM so etcd shuts down cleanly.
    signalNow(entry.pids, entry.purgeDir ? 'SIGKILL' : 'SIGTERM');
    // A real node: containers, mounts, namespace, cgroups and host changes go too (synchronously).
    const record = readNodeRecord(nodeLayout(entry.root).record);
    if (record) teardownRealNode(record);
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

/** The built watchdog, or its source when running from src/ under vitest (Node strips the types). */
function watchdogScript(): string {
  const built = fileURLToPath(new URL('./watchdog.js', import.meta.url));
  return existsSync(built) ? built : fileURLToPath(new URL('./watchdog.ts', import.meta.url));
}

function startWatchdog(root: string, binDir: string, purge: boolean): number | undefined {
  const child = spawn(
    process.execPath,
    [watchdogScript(), String(process.pid), root, binDir, purge ? '1' : '0'],
    {
      detached: true,
      stdio: 'ignore',
    },
  );
  child.on('error', () => {});
  child.unref();
  return child.pid;
}

export interface OwnedCluster {
  name: string;
  root: string;
  binDir: string;
  /** Delete the state directory as well when cleaning up. */
  purge: boolean;
}

/** Starts tracking a cluster; returns the (mutable) pid list to append to as components start. */
export function ownCluster(cluster: OwnedCluster): number[] {
  releaseCluster(cluster.name);
  const entry: Owned = {
    pids: [],
    root: cluster.root,
    purgeDir: cluster.purge ? cluster.root : undefined,
    watchdog: startWatchdog(cluster.root, cluster.binDir, cluster.purge),
  };
  owned.set(cluster.name, entry);
  install();
  return entry.pids;
}

export function releaseCluster(name: string): void {
  const entry = owned.get(name);
  if (entry) stopWatchdog(entry);
  owned.delete(name);
  if (owned.size === 0) uninstall();
}
