import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { exec } from './util/exec.js';

/** What an image records about the source it was built from. */
export interface SourceInfo {
  /** Seconds since the epoch: layer mtimes and the config's `created`. */
  epoch: number;
  /** The commit, for the org.opencontainers.image.revision label. */
  revision: string;
}

/** The repository root: the nearest folder above this package whose package.json has workspaces. */
export function repoRoot(from: string = dirname(fileURLToPath(import.meta.url))): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && 'workspaces' in JSON.parse(readFileSync(manifest, 'utf8'))) return dir;
    if (dirname(dir) === dir)
      throw new Error(`no workspace root (package.json with "workspaces") above ${from}`);
  }
}

/**
 * The HEAD commit and its committer time. SOURCE_DATE_EPOCH, the reproducible-builds convention,
 * overrides the time (e.g. for a source tarball without .git); SOURCE_REVISION the commit.
 */
export async function sourceInfo(root: string = repoRoot()): Promise<SourceInfo> {
  const fromEnv = process.env.SOURCE_DATE_EPOCH;
  let epoch: number | undefined;
  if (fromEnv !== undefined && fromEnv !== '') {
    epoch = Number(fromEnv);
    if (!Number.isInteger(epoch) || epoch < 0) {
      throw new Error(`SOURCE_DATE_EPOCH must be a whole number of seconds, not "${fromEnv}"`);
    }
  }
  let revision = process.env.SOURCE_REVISION;
  if (epoch === undefined || !revision) {
    const out = await exec(['git', 'log', '-1', '--format=%H %ct', 'HEAD'], { cwd: root }).catch(
      (error: Error) => {
        throw new Error(
          `cannot read the commit time and revision with git in ${root} (set SOURCE_DATE_EPOCH and SOURCE_REVISION outside a git checkout): ${error.message}`,
        );
      },
    );
    const [hash, time] = out.trim().split(' ');
    revision ||= hash;
    epoch ??= Number(time);
  }
  if (!revision || !Number.isInteger(epoch))
    throw new Error('could not determine the source revision and time');
  return { epoch, revision };
}

/**
 * The committer time of the last commit up to `source.revision` that changed any of `paths`
 * (relative to `root`), for a layer that should stay byte-identical across commits that do not
 * touch its inputs. Under SOURCE_DATE_EPOCH, or when git knows no such commit, `source.epoch`.
 */
export async function lastChangeEpoch(
  root: string,
  paths: readonly string[],
  source: SourceInfo,
): Promise<number> {
  const fallback = source.epoch;
  if (process.env.SOURCE_DATE_EPOCH) return fallback;
  const out = await exec(['git', 'log', '-1', '--format=%ct', source.revision, '--', ...paths], {
    cwd: root,
  }).catch(() => '');
  const epoch = Number(out.trim());
  return out.trim() !== '' && Number.isInteger(epoch) ? epoch : fallback;
}
