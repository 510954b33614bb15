import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, readlink, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** A fresh Fernet key: 32 random bytes, base64 (what Keystone and the operator use). */
export function newFernetKey(): string {
  return randomBytes(32).toString('base64');
}

/**
 * Replaces the keys of a Keystone key repository at once: `repository` is a symlink to a directory of
 * files `0..N-1` (index i = `keys[i]`: 0 staged, highest primary), and a new directory is swapped in
 * with an atomic rename of the link, so Keystone never reads a half-written set.
 */
export async function writeKeyRepository(repository: string, keys: readonly string[]): Promise<void> {
  const parent = dirname(repository);
  const generation = `${basename(repository)}.${Date.now()}-${randomBytes(4).toString('hex')}`;
  const target = join(parent, generation);
  await mkdir(target, { mode: 0o700 });
  await Promise.all(keys.map((key, index) => writeFile(join(target, String(index)), key, { mode: 0o600 })));
  const previous = await readlink(repository).catch(() => undefined);
  const link = join(parent, `${generation}.link`);
  await symlink(generation, link);
  await rename(link, repository);
  if (previous) await rm(join(parent, previous), { recursive: true, force: true });
}

/** The keys currently in a repository, in index order. */
export async function readKeyRepository(repository: string): Promise<string[]> {
  const names = (await readdir(repository))
    .filter((n) => /^\d+$/.test(n))
    .sort((a, b) => Number(a) - Number(b));
  return Promise.all(names.map((n) => readFile(join(repository, n), 'utf8')));
}

/**
 * The fernet keys of the operator's `keystone` Secret (`data.FernetKeys0..N-1`, base64 of the key
 * text), in repository order, ready for `writeKeyRepository`.
 */
export function fernetKeysFromSecretData(data: Readonly<Record<string, string>> | undefined): string[] {
  const keys: string[] = [];
  for (let i = 0; data?.[`FernetKeys${i}`] !== undefined; i++) {
    keys.push(Buffer.from(data[`FernetKeys${i}`] ?? '', 'base64').toString('utf8'));
  }
  return keys;
}
