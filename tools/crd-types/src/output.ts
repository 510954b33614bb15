import { spawnSync } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { generate, OUTPUT_DIR } from './generate.js';

const BIOME = createRequire(import.meta.url).resolve('@biomejs/biome/bin/biome');

/** Biome's formatting and safe fixes (sorted exports) of `text` as the file at `path`. */
function format(text: string, path: string): string {
  const res = spawnSync(process.execPath, [BIOME, 'check', '--write', `--stdin-file-path=${path}`], {
    input: text,
    encoding: 'utf8',
  });
  if (res.status !== 0) throw new Error(`biome check ${path} failed: ${res.stderr}`);
  return res.stdout;
}

/**
 * Generates the types and writes them to lib-common (`write`), or only compares them with the
 * committed files. Returns the names of the files that differed.
 */
export async function syncGeneratedTypes(mode: 'write' | 'check'): Promise<string[]> {
  const files = await generate();
  await mkdir(OUTPUT_DIR, { recursive: true });
  const differing: string[] = [];
  for (const [name, text] of files) {
    const path = join(OUTPUT_DIR, name);
    const want = format(text, relative(process.cwd(), path));
    if ((await readFile(path, 'utf8').catch(() => '')) === want) continue;
    differing.push(name);
    if (mode === 'write') await writeFile(path, want);
  }
  return differing;
}
