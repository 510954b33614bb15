import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tarDirectory } from './tar.js';
import { exec } from './util/exec.js';

const scratch = mkdtempSync(join(tmpdir(), 'images-tar-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function tree(name: string, mtime: number): string {
  const dir = join(scratch, name);
  mkdirSync(join(dir, 'home', 'nonroot'), { recursive: true });
  mkdirSync(join(dir, 'etc'), { recursive: true });
  writeFileSync(join(dir, 'etc', 'b'), 'b');
  writeFileSync(join(dir, 'etc', 'a'), 'a');
  writeFileSync(join(dir, 'home', 'nonroot', '.profile'), '');
  for (const p of ['etc', 'home', join('home', 'nonroot')]) chmodSync(join(dir, p), 0o755);
  for (const p of [join('etc', 'a'), join('etc', 'b'), join('home', 'nonroot', '.profile')]) {
    chmodSync(join(dir, p), 0o644);
    utimesSync(join(dir, p), mtime, mtime);
  }
  return dir;
}

describe('tarDirectory', () => {
  const owners = [{ path: 'home/nonroot', uid: 65532, gid: 65532 }];

  it('gives the same bytes for the same files whatever their times and creation order', async () => {
    await tarDirectory(tree('one', 1_000), join(scratch, 'one.tar'), { epoch: 1_700_000_000, owners });
    await tarDirectory(tree('two', 2_000_000), join(scratch, 'two.tar'), { epoch: 1_700_000_000, owners });
    expect(readFileSync(join(scratch, 'one.tar')).equals(readFileSync(join(scratch, 'two.tar')))).toBe(true);
    await tarDirectory(tree('three', 1_000), join(scratch, 'three.tar'), { epoch: 1_700_000_001, owners });
    expect(readFileSync(join(scratch, 'one.tar')).equals(readFileSync(join(scratch, 'three.tar')))).toBe(
      false,
    );
  });

  it('names entries without ./, sorted, root-owned except the owned paths, with the given mtime', async () => {
    const listing = await exec(['tar', '--numeric-owner', '--full-time', '-tvf', join(scratch, 'one.tar')], {
      env: { ...process.env, TZ: 'UTC' },
    });
    const rows = listing
      .trim()
      .split('\n')
      .map((l) => l.split(/\s+/))
      .map((f) => ({ owner: f[1], time: `${f[3]} ${f[4]}`, name: f[5] }));
    expect(rows.map((r) => r.name)).toEqual([
      'etc/',
      'etc/a',
      'etc/b',
      'home/',
      'home/nonroot/',
      'home/nonroot/.profile',
    ]);
    const owner = (name: string) => rows.find((r) => r.name === name)?.owner;
    expect(owner('etc/a')).toBe('0/0');
    expect(owner('home/')).toBe('0/0');
    expect(owner('home/nonroot/')).toBe('65532/65532');
    expect(owner('home/nonroot/.profile')).toBe('65532/65532');
    expect(new Set(rows.map((r) => r.time))).toEqual(new Set(['2023-11-14 22:13:20']));
  });
});
