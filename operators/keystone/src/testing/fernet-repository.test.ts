import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  fernetKeysFromSecretData,
  newFernetKey,
  readKeyRepository,
  writeKeyRepository,
} from './fernet-repository.js';

describe('key repository', () => {
  it('swaps in a whole new key set and removes the previous directory', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'fernet-test-'));
    try {
      const repo = join(dir, 'fernet-keys');
      const first = [newFernetKey(), newFernetKey(), newFernetKey()];
      await writeKeyRepository(repo, first);
      expect(await readKeyRepository(repo)).toEqual(first);
      const second = [newFernetKey(), newFernetKey()];
      await writeKeyRepository(repo, second);
      expect(await readKeyRepository(repo)).toEqual(second);
      // One generation directory plus the link.
      expect((await readdir(dir)).length).toBe(2);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('reads FernetKeys0..N-1 of a Secret in order and decodes them', () => {
    const b64 = (s: string) => Buffer.from(s).toString('base64');
    expect(
      fernetKeysFromSecretData({
        FernetKeys1: b64('one'),
        FernetKeys0: b64('zero'),
        CredentialKeys0: b64('c'),
      }),
    ).toEqual(['zero', 'one']);
    expect(fernetKeysFromSecretData(undefined)).toEqual([]);
  });

  it('makes 32-byte keys', () => {
    expect(Buffer.from(newFernetKey(), 'base64')).toHaveLength(32);
  });
});
