import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { caBundle } from './debian.js';

const scratch = mkdtempSync(join(tmpdir(), 'images-debian-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('caBundle', () => {
  it('concatenates the .crt files in byte order of their paths, each ending in a newline', () => {
    const certs = join(scratch, 'usr', 'share', 'ca-certificates');
    mkdirSync(join(certs, 'mozilla'), { recursive: true });
    mkdirSync(join(certs, 'Zeta'), { recursive: true });
    writeFileSync(join(certs, 'mozilla', 'b.crt'), 'B\n');
    writeFileSync(join(certs, 'mozilla', 'a.crt'), 'A');
    writeFileSync(join(certs, 'Zeta', 'z.crt'), 'Z\n');
    writeFileSync(join(certs, 'mozilla', 'README'), 'not a certificate');
    expect(caBundle(scratch)).toBe('Z\nA\nB\n');
  });
});
