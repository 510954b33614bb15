import { readdirSync } from 'node:fs';
import { exec } from './util/exec.js';

/** Files under `path` (relative to the layer's root, e.g. `home/nonroot`) belong to uid:gid. */
export interface Ownership {
  path: string;
  uid: number;
  gid: number;
}

export interface TarOptions {
  /** Seconds since the epoch: every entry's mtime (the commit time, for reproducible layers). */
  epoch: number;
  /** Everything else belongs to 0:0. */
  owners?: readonly Ownership[];
}

/** Byte order, as GNU tar's --sort=name and `LC_ALL=C sort` use, independent of the locale. */
export function byteOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

/**
 * GNU tar flags that make the archive a function of the files' names, contents, modes and
 * symlink targets only: sorted entries, one mtime, numeric owners, pax headers without
 * per-process names or access/change times.
 */
export function reproducibleTarFlags(epoch: number): string[] {
  return [
    '--sort=name',
    `--mtime=@${epoch}`,
    '--numeric-owner',
    '--format=posix',
    '--pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime',
  ];
}

/**
 * Writes `dir`'s contents (not `dir` itself) to an uncompressed tar, reproducibly. Entries are
 * named without a leading `./`, as in images built by other tools. Owned paths are appended
 * after the rest with their own uid:gid, since tar's --owner applies to a whole invocation.
 */
export async function tarDirectory(dir: string, outFile: string, options: TarOptions): Promise<void> {
  const entries = readdirSync(dir).sort(byteOrder);
  if (entries.length === 0) throw new Error(`tarDirectory: ${dir} is empty; a layer needs at least one file`);
  const owners = [...(options.owners ?? [])].sort((a, b) => byteOrder(a.path, b.path));
  const common = [...reproducibleTarFlags(options.epoch), '-C', dir];
  const env = { ...process.env, LC_ALL: 'C' };
  await exec(
    [
      'tar',
      ...common,
      '--owner=0',
      '--group=0',
      '--anchored',
      ...owners.map((o) => `--exclude=${o.path}`),
      '-cf',
      outFile,
      '--',
      ...entries,
    ],
    { env },
  );
  for (const owner of owners) {
    await exec(
      ['tar', ...common, `--owner=${owner.uid}`, `--group=${owner.gid}`, '-rf', outFile, '--', owner.path],
      { env },
    );
  }
}
