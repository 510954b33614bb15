/**
 * Runs beside a control plane that a process started without `detach` (tests): when that process
 * disappears without cleaning up (SIGKILL, crash), stops the components it left behind.
 *
 * Usage: node watchdog.js <parent-pid> <state-dir> <bin-dir> <purge: 0|1>
 * Node-only imports and erasable TypeScript, so Node can also run the .ts source directly.
 */
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const [parentArg = '', root = '', binDir = '', purgeArg = '0'] = process.argv.slice(2);
const parent = Number(parentArg);

// The real node's teardown module (Node-only imports too), built or run from source like this file.
const extension = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
const { alive, readNodeRecord, teardownRealNode } = (await import(
  new URL(`../node/teardown${extension}`, import.meta.url).href
)) as typeof import('../node/teardown.js');

/** Pids from the cluster's pid files that still run one of our binaries. */
function componentPids(): number[] {
  const runDir = join(root, 'run');
  let files: string[] = [];
  try {
    files = readdirSync(runDir).filter((f) => f.endsWith('.pid'));
  } catch {
    return [];
  }
  return files
    .map((f) => Number.parseInt(readFileSync(join(runDir, f), 'utf8'), 10))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').startsWith(`${binDir}/`);
      } catch {
        return false;
      }
    });
}

function signalGroups(pids: number[], signal: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(-pid, signal);
    } catch {
      // gone
    }
  }
}

async function cleanUp(): Promise<void> {
  const pids = componentPids();
  if (purgeArg === '1') {
    signalGroups(pids, 'SIGKILL');
  } else {
    signalGroups(pids, 'SIGTERM');
    const deadline = Date.now() + 10_000;
    while (pids.some(alive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    signalGroups(pids.filter(alive), 'SIGKILL');
  }
  // A real node: containers, mounts, namespace, cgroups and host changes go too.
  const record = readNodeRecord(join(root, 'node', 'node.json'));
  if (record) teardownRealNode(record);
  if (purgeArg === '1') rmSync(root, { recursive: true, force: true });
}

if (!Number.isInteger(parent) || parent <= 1 || !root || !binDir) {
  process.stderr.write('usage: watchdog <parent-pid> <state-dir> <bin-dir> <0|1>\n');
  process.exit(2);
}
const timer = setInterval(() => {
  if (alive(parent)) return;
  clearInterval(timer);
  void cleanUp().then(() => process.exit(0));
}, 250);
