import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildCompileCache, compileCacheDir } from './compile-cache.js';

const scratch = mkdtempSync(join(tmpdir(), 'compile-cache-test-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** An app folder shaped like an image's: an entry point that enables the cache, then the operator. */
function app(name: string): string {
  const dir = join(scratch, name);
  mkdirSync(join(dir, 'bundle', 'chunks'), { recursive: true });
  writeFileSync(
    join(dir, 'bundle', 'main.mjs'),
    `import { enableCompileCache } from 'node:module';
enableCompileCache({ directory: \`\${import.meta.dirname}/${compileCacheDir}\`, portable: true });
await import('./operator.mjs');
`,
  );
  writeFileSync(
    join(dir, 'bundle', 'operator.mjs'),
    `import { words } from './chunks/words.mjs';
const seen = new Map(words.map((w) => [w, w.length]));
if (process.argv.includes('--help')) console.log('Usage: demo', seen.size);
`,
  );
  writeFileSync(
    join(dir, 'bundle', 'chunks', 'words.mjs'),
    'export const words = ["alpha", "beta", "gamma"];\n',
  );
  writeFileSync(join(dir, 'package.json'), '{"type":"module"}\n');
  return dir;
}

/** Each file under `root` (path relative to it) with its bytes, in order. */
const files = (root: string) =>
  readdirSync(root, { recursive: true, encoding: 'utf8' })
    .sort()
    .filter((f) => statSync(join(root, f)).isFile())
    .map((f) => [f, readFileSync(join(root, f)).toString('base64')]);

describe('buildCompileCache', () => {
  const a = app('a');
  const b = app('b');
  buildCompileCache(a, process.execPath, 65532);
  buildCompileCache(b, process.execPath, 65532);
  const cacheOf = (dir: string) => join(dir, 'bundle', compileCacheDir);

  it("names the folder for the image's user, as node looks it up", () => {
    const [tag, ...more] = readdirSync(cacheOf(a));
    expect(more).toEqual([]);
    expect(tag).toMatch(new RegExp(`^v${process.versions.node}-${process.arch}-[0-9a-f]+-65532$`));
    // main's imports: operator.mjs and its chunk.
    expect(readdirSync(join(cacheOf(a), tag as string))).toHaveLength(2);
  });

  it('gives the same bytes for the same files in another folder', () => {
    expect(files(cacheOf(a))).toHaveLength(2);
    expect(files(cacheOf(b))).toEqual(files(cacheOf(a)));
  });

  it('is read by node running as that user: the code is accepted, nothing is written', () => {
    // Our own user's folder name: node reads `<tag>-<uid>` of the user it runs as.
    const uid = process.getuid?.() ?? 0;
    const c = app('c');
    buildCompileCache(c, process.execPath, uid);
    const before = files(cacheOf(c));
    const run = spawnSync(process.execPath, [join(c, 'bundle', 'main.mjs'), '--help'], {
      env: { NODE_DEBUG_NATIVE: 'COMPILE_CACHE' },
      encoding: 'utf8',
    });
    expect(run.stdout).toBe('Usage: demo 3\n');
    expect(run.stderr).toMatch(/V8 code cache for ESM file:\S+\/c\/bundle\/operator\.mjs was accepted/);
    expect(run.stderr).not.toMatch(/was rejected|not initialized|Creating temporary file/);
    expect(files(cacheOf(c))).toEqual(before);
  });
});
