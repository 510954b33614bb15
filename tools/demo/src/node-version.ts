import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { constants } from 'node:os';
import { basename, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The demo's dependencies (the Kubernetes client's undici) do not load on an older Node. */
export const REQUIRED_NODE_MAJOR = 24;

/** The repository's Node 24 (the pinned `node` devDependency, ADR 0007), from dist/ or src/. */
export const repoNode = resolve(dirname(fileURLToPath(import.meta.url)), '../../../node_modules/.bin/node');

export const nodeMajor = (version: string = process.versions.node): number => Number(version.split('.')[0]);

/**
 * Lets an entry point be started with the machine's own Node, as the README shows
 * (`node tools/demo/dist/main.js`): on a Node older than 24 it runs the same script, with the same
 * arguments and terminal, under the repository's Node 24 and exits with its status; without one
 * (no `npm ci` yet) it says how to get it and exits 1. Returns false when this Node will do.
 * Only `node:` modules may be imported above this call: the entry point loads everything else after.
 */
export function handOverToRepoNode(entry: string): boolean {
  if (nodeMajor() >= REQUIRED_NODE_MAJOR) return false;
  const name = basename(entry);
  if (!existsSync(repoNode)) {
    process.stderr.write(
      `${name} needs Node.js ${REQUIRED_NODE_MAJOR}; this is ${process.version}.\n` +
        'Run `npm ci` at the repository root (it installs Node 24 into node_modules/.bin), then run it again,\n' +
        'or use `make demo`, which does both.\n',
    );
    process.exit(1);
  }
  const child = spawn(repoNode, [...process.execArgv, entry, ...process.argv.slice(2)], { stdio: 'inherit' });
  // A terminal's Ctrl-C reaches both processes; `kill <pid>` reaches only this one: pass it on.
  // The demo's handlers are idempotent, so a signal delivered twice is harmless.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => child.kill(signal));
  child.on('error', (err) => {
    process.stderr.write(`${name}: could not start ${repoNode}: ${err.message}\n`);
    process.exit(1);
  });
  child.on('exit', (code, signal) => process.exit(code ?? 128 + (signal ? constants.signals[signal] : 0)));
  return true;
}
