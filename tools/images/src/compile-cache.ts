import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, readdirSync, readFileSync, rmdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** Where a bundle's entry point (operators' bundle/main.mjs) has node keep V8's code (ADR 0067). */
export const compileCacheDir = 'compile-cache';

const LOCK_WAIT_MS = 120_000;

/**
 * Builds the compile cache of a staged `app` folder (bundle/main.mjs, bundle/operator.mjs, its
 * chunks, package.json) as the image's node reads it: V8's code for the files `--help` loads, in
 * `bundle/compile-cache/<node's tag>-<uid>` for the image's user (node names the folder after the
 * user it runs as). V8's code holds the path it was built at, and hashes seeded at random unless
 * the seed is fixed: so it is built with a fixed seed at one path per content (under the OS temp
 * folder), and two builds of a commit give the same bytes. `nodeBinary` is the image's node.
 */
export function buildCompileCache(appDir: string, nodeBinary: string, uid: number): void {
  const bundle = join(appDir, 'bundle');
  rmSync(join(bundle, compileCacheDir), { recursive: true, force: true });
  const root = join(tmpdir(), 'stackops-compile-cache', contentKey(appDir));
  lockDir(root);
  try {
    const app = join(root, 'app');
    cpSync(appDir, app, { recursive: true });
    // A clean environment: NODE_COMPILE_CACHE or NODE_OPTIONS would move the cache or change its tag.
    execFileSync(nodeBinary, ['--random-seed=1', join(app, 'bundle', 'main.mjs'), '--help'], {
      stdio: 'ignore',
      env: {},
    });
    const built = join(app, 'bundle', compileCacheDir);
    const tags = readdirSync(built);
    if (tags.length !== 1)
      throw new Error(`${built}: expected one folder, found ${tags.join(', ') || 'none'}`);
    const tag = tags[0] as string;
    cpSync(join(built, tag), join(bundle, compileCacheDir, tag.replace(/-\d+$/, `-${uid}`)), {
      recursive: true,
    });
  } finally {
    rmSync(root, { recursive: true, force: true });
    // The shared parent goes too once no build uses it.
    try {
      rmdirSync(dirname(root));
    } catch {}
  }
}

/** sha256 of every file's path and bytes under `dir`, in sorted order (16 hex digits). */
function contentKey(dir: string): string {
  const hash = createHash('sha256');
  const files = readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => statSync(join(dir, f)).isFile())
    .sort();
  for (const f of files) hash.update(`${f}\0`).update(readFileSync(join(dir, f)));
  return hash.digest('hex').slice(0, 16);
}

/** Creates `dir` as a lock: another build of the same content waits for it to go (a stale one is taken over). */
function lockDir(dir: string): void {
  mkdirSync(dirname(dir), { recursive: true });
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      mkdirSync(dir);
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      if (Date.now() > deadline) {
        rmSync(dir, { recursive: true, force: true });
        continue;
      }
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
    }
  }
}
