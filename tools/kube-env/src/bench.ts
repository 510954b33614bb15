import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { ensureBinaries, type Stamp } from './build/build.js';
import { goEnv } from './build/go.js';
import { startCluster, stopCluster } from './cluster/control-plane.js';
import { type ComponentName, controlPlaneComponents, nodeComponent, nodeDaemons } from './cluster/layout.js';
import { cacheLayout } from './paths.js';
import { formatBytes, formatDuration } from './util/format.js';

/** Resident set size of a process in bytes (VmRSS from /proc). */
export function rssBytes(pid: number): number {
  const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match?.[1] ? Number(match[1]) * 1024 : 0;
}

function diskUsage(path: string): string {
  try {
    return execFileSync('du', ['-sh', path], { encoding: 'utf8' }).split('\t')[0] ?? '?';
  } catch {
    return '?';
  }
}

function goCacheDirs(): { modcache: string; buildcache: string } {
  const out = execFileSync('go', ['env', 'GOMODCACHE', 'GOCACHE'], { encoding: 'utf8', env: goEnv() })
    .trim()
    .split('\n');
  return { modcache: out[0] ?? '', buildcache: out[1] ?? '' };
}

export interface BenchOptions {
  nodes: number;
  runs?: number;
  /** How long to let the cluster settle before reading memory. */
  settleMs?: number;
  /** Start each cluster with this many real nodes (root), and report their processes' memory too. */
  realNodes?: number;
  /** The clusters are named `<prefix>-<pid>-<run>` (default `bench`). */
  namePrefix?: string;
}

/**
 * Prints: the build stamp of the cache, cache sizes, `up` time to all-ready with a warm cache
 * (several runs, each on a fresh private cluster), RSS per component after settling, `down` time.
 */
export async function runBench(options: BenchOptions): Promise<void> {
  const out = (line: string) => process.stdout.write(`${line}\n`);
  const build = await ensureBinaries();
  const layout = cacheLayout();
  const stamp = JSON.parse(readFileSync(layout.stamp, 'utf8')) as Stamp;
  const built = Object.entries(stamp.steps).map(([step, ms]) => `${step} ${formatDuration(ms)}`);
  out(`kube-env bench (${layout.root})`);
  out(
    `  machine: ${cpus().length} CPUs, load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  out(`  build: cache check took ${build.durationMs} ms`);
  out(
    `  last build (${stamp.builtAt}, go ${stamp.go}): ${stamp.totalMs === undefined ? '?' : formatDuration(stamp.totalMs)}; built: ${built.join(', ') || 'nothing'} (other steps were already in the cache; see ${layout.buildLog})`,
  );
  const { modcache, buildcache } = goCacheDirs();
  out(
    `  disk: binaries cache ${diskUsage(layout.root)}, GOMODCACHE ${diskUsage(modcache)}, GOCACHE ${diskUsage(buildcache)}`,
  );

  const runs = options.runs ?? 3;
  const realNodes = options.realNodes ?? 0;
  const upTimes: number[] = [];
  for (let run = 1; run <= runs; run++) {
    const name = `${options.namePrefix ?? 'bench'}-${process.pid}-${run}`;
    const handle = await startCluster({
      name,
      nodes: options.nodes,
      realNodes,
      fresh: true,
      ephemeral: true,
    });
    upTimes.push(handle.startupMs);
    const what = `${options.nodes} nodes Ready${realNodes > 0 ? `, ${realNodes} real node(s) Ready, kube-proxy synced, CoreDNS ready` : ''}, default ServiceAccount`;
    out(`  up #${run}: all ready (${what}) in ${formatDuration(handle.startupMs)}`);
    if (run === runs) {
      await sleep(options.settleMs ?? 15_000);
      out(`  memory after ${formatDuration(options.settleMs ?? 15_000)} idle (RSS):`);
      const groups: Array<[string, readonly ComponentName[]]> = [
        ['control plane', controlPlaneComponents],
        ...(realNodes > 0
          ? ([
              ['real node', ['containerd', 'kubelet', 'kube-proxy', 'coredns']],
              ['port forwarder', ['port-forward', 'port-forward-netns']],
            ] as Array<[string, ComponentName[]]>)
          : []),
        ...Array.from({ length: Math.max(0, realNodes - 1) }, (_, i): [string, ComponentName[]] => [
          `real node ${i + 2}`,
          nodeDaemons.map((d) => nodeComponent(d, i + 2)),
        ]),
      ];
      for (const [group, components] of groups) {
        let total = 0;
        for (const component of components) {
          const pid = handle.state.components[component]?.pid;
          const rss = pid ? rssBytes(pid) : 0;
          total += rss;
          out(`    ${component.padEnd(24)} ${formatBytes(rss)}`);
        }
        out(`    ${`total, ${group}`.padEnd(24)} ${formatBytes(total)}`);
      }
    }
    const stopStarted = Date.now();
    await stopCluster(name, { purge: true });
    out(`  down #${run}: ${formatDuration(Date.now() - stopStarted)}`);
  }
  const sorted = [...upTimes].sort((a, b) => a - b);
  out(
    `  up time: median ${formatDuration(sorted[Math.floor(sorted.length / 2)] ?? 0)}, min ${formatDuration(sorted[0] ?? 0)}, max ${formatDuration(sorted[sorted.length - 1] ?? 0)} (target < 20s)`,
  );
}
