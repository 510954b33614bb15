import { appendFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type CacheLayout, cacheLayout } from '../paths.js';
import { formatDuration } from '../util/format.js';
import { acquireLock } from '../util/lock.js';
import { run } from '../util/run.js';
import { cacheKey, versions } from '../versions.js';
import { type BuildStep, buildSteps, versionChecks } from './components.js';
import { checkGo } from './go.js';

export interface BuildOptions {
  /** Rebuild every binary even when the cache is complete. */
  force?: boolean;
  /** Receives one line per event (default: stderr). */
  progress?: (line: string) => void;
}

export interface BuildResult {
  layout: CacheLayout;
  /** True when nothing had to be built. */
  cached: boolean;
  durationMs: number;
}

export interface Stamp {
  key: string;
  versions: typeof versions;
  go: string;
  builtAt: string;
  /** Milliseconds per step this build ran; steps whose outputs were already there are absent. */
  steps: Record<string, number>;
  /** Absent in stamps written before it was recorded. */
  totalMs?: number;
}

/** The stamp is written last, so a complete cache is: a stamp with our key, and every binary present. */
export function isCacheComplete(layout: CacheLayout = cacheLayout()): boolean {
  try {
    const stamp = JSON.parse(readFileSync(layout.stamp, 'utf8')) as Stamp;
    return stamp.key === cacheKey() && buildSteps.every((step) => outputsExist(layout, step));
  } catch {
    return false;
  }
}

function outputsExist(layout: CacheLayout, step: BuildStep): boolean {
  return step.outputs.every((output) => existsSync(join(layout.root, output)));
}

const defaultProgress = (line: string) => process.stderr.write(`${line}\n`);

/**
 * Makes sure the pinned binaries are in the cache, building what is missing. Concurrent callers
 * serialise on a lock file; the second one finds the cache complete and returns.
 */
export async function ensureBinaries(options: BuildOptions = {}): Promise<BuildResult> {
  const started = Date.now();
  const layout = cacheLayout();
  const progress = options.progress ?? defaultProgress;
  if (!options.force && isCacheComplete(layout))
    return { layout, cached: true, durationMs: Date.now() - started };

  const lock = await acquireLock(layout.lock, {
    onWait: (pid) =>
      progress(`kube-env build: another build (pid ${pid}) holds ${layout.lock}; waiting for it`),
  });
  try {
    if (!options.force && isCacheComplete(layout))
      return { layout, cached: true, durationMs: Date.now() - started };
    // Binaries are replaced by rename, never deleted first: running clusters keep working.
    rmSync(layout.stamp, { force: true });
    mkdirSync(layout.bin, { recursive: true });
    mkdirSync(layout.src, { recursive: true });
    appendFileSync(
      layout.buildLog,
      `\n===== kube-env build ${cacheKey()} started ${new Date().toISOString()} =====\n`,
    );

    const goVersion = await checkGo();
    progress(`kube-env build: go ${goVersion} → ${layout.root} (log: ${layout.buildLog})`);
    const steps: Record<string, number> = {};
    for (const step of buildSteps) {
      if (!options.force && outputsExist(layout, step)) {
        progress(`  ${step.name} ${step.version}: already built`);
        continue;
      }
      steps[step.name] = await runStep(step, layout, started, progress);
    }
    await verifyVersions(layout);
    const total = Date.now() - started;
    const stamp: Stamp = {
      key: cacheKey(),
      versions,
      go: goVersion,
      builtAt: new Date().toISOString(),
      steps,
      totalMs: total,
    };
    writeFileSync(layout.stamp, `${JSON.stringify(stamp, null, 2)}\n`);
    appendFileSync(layout.buildLog, `===== kube-env build finished in ${formatDuration(total)} =====\n`);
    progress(`kube-env build: done in ${formatDuration(total)}`);
    return { layout, cached: false, durationMs: total };
  } finally {
    lock.release();
  }
}

/** Runs one step with a start line, a reminder every minute (cold builds take long), and an end line. */
async function runStep(
  step: BuildStep,
  layout: CacheLayout,
  buildStarted: number,
  progress: (line: string) => void,
): Promise<number> {
  const started = Date.now();
  progress(`  ${step.name} ${step.version}: building…`);
  appendFileSync(layout.buildLog, `\n----- ${step.name} ${step.version} -----\n`);
  const ticker = setInterval(
    () =>
      progress(`  ${step.name} ${step.version}: still building (${formatDuration(Date.now() - started)})`),
    60_000,
  );
  try {
    await step.run({ layout, logFile: layout.buildLog });
  } catch (error) {
    throw new Error(
      `kube-env build: ${step.name} ${step.version} failed after ${formatDuration(Date.now() - started)}; full log: ${layout.buildLog}\n${(error as Error).message}`,
    );
  } finally {
    clearInterval(ticker);
  }
  const elapsed = Date.now() - started;
  appendFileSync(layout.buildLog, `----- ${step.name} done in ${formatDuration(elapsed)} -----\n`);
  progress(
    `  ${step.name} ${step.version}: built in ${formatDuration(elapsed)} (total ${formatDuration(Date.now() - buildStarted)})`,
  );
  return elapsed;
}

/** Each binary must report the pinned version (a wrong ldflag or module would show here, not in a test). */
async function verifyVersions(layout: CacheLayout): Promise<void> {
  for (const check of versionChecks) {
    const { stdout, stderr } = await run([join(layout.bin, check.binary), ...check.args], {
      logFile: layout.buildLog,
    });
    const output = `${stdout}${stderr}`;
    if (!output.includes(check.expect)) {
      throw new Error(`kube-env build: ${check.binary} reports "${output.trim()}", expected ${check.expect}`);
    }
  }
}
