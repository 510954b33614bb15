import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { stackopsCacheDir } from '@stackops/kube-env';
import type { SubjectSpec } from './subject.js';

/** A JavaScript runtime other than Node that installs from npm (ADR 0045). */
export interface Runtime {
  name: 'bun' | 'deno';
  version: string;
}

export function parseRuntime(value: string): Runtime {
  const m = /^(bun|deno)@(\d+\.\d+\.\d+)$/.exec(value);
  if (!m) throw new Error(`--runtime: expected bun@<x.y.z> or deno@<x.y.z>, got "${value}"`);
  return { name: m[1] as Runtime['name'], version: m[2]! };
}

/**
 * The runtime's binary, installed once from npm into a cache outside the repository (keyed by
 * version): the bench measures it, nothing in the repository depends on it.
 */
export function installRuntime(runtime: Runtime, progress: (line: string) => void): string {
  const prefix = join(stackopsCacheDir(), 'runtimes', `${runtime.name}-${runtime.version}`);
  const bin = join(prefix, 'node_modules', '.bin', runtime.name);
  if (!existsSync(bin)) {
    progress(`installing ${runtime.name}@${runtime.version} from npm into ${prefix}`);
    mkdirSync(prefix, { recursive: true });
    execFileSync(
      'npm',
      [
        'install',
        '--prefix',
        prefix,
        '--no-audit',
        '--no-fund',
        '--no-save',
        `${runtime.name}@${runtime.version}`,
      ],
      { stdio: ['ignore', 'ignore', 'inherit'] },
    );
  }
  return bin;
}

/**
 * The same operator entry point and arguments under another runtime. Node's own flags (heap sizes,
 * `--max-opt`) mean nothing there and are left out.
 */
export function underRuntime(spec: SubjectSpec, runtime: Runtime, bin: string): SubjectSpec {
  const [, ...rest] = spec.command;
  const entry = rest.findIndex((a) => !a.startsWith('--'));
  if (entry < 0) throw new Error(`${spec.name}: no entry point in ${spec.command.join(' ')}`);
  const script = rest.slice(entry);
  return {
    ...spec,
    name: `${spec.name} (${runtime.name} ${runtime.version})`,
    command: runtime.name === 'deno' ? [bin, 'run', '--allow-all', ...script] : [bin, ...script],
  };
}
