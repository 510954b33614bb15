import { homedir } from 'node:os';
import { join } from 'node:path';
import { cacheKey } from './versions.js';

/** `${XDG_CACHE_HOME:-$HOME/.cache}/stackops`: the caches of stackops' tools, outside any checkout. */
export function stackopsCacheDir(): string {
  const xdg = process.env.XDG_CACHE_HOME;
  return join(xdg && xdg.length > 0 ? xdg : join(homedir(), '.cache'), 'stackops');
}

/** `${XDG_CACHE_HOME:-$HOME/.cache}/stackops/kube-env`: binaries per cache key, and cluster state. */
export function kubeEnvRoot(): string {
  return join(stackopsCacheDir(), 'kube-env');
}

/** Where one pinned set of binaries lives, with its build log, wrapper modules and kwok stages. */
export interface CacheLayout {
  readonly root: string;
  readonly bin: string;
  readonly stages: string;
  readonly src: string;
  readonly buildLog: string;
  /** Written last by a successful build; its presence means the cache is complete. */
  readonly stamp: string;
  readonly lock: string;
}

export function cacheLayout(key: string = cacheKey()): CacheLayout {
  const root = join(kubeEnvRoot(), key);
  return {
    root,
    bin: join(root, 'bin'),
    stages: join(root, 'stages'),
    src: join(root, 'src'),
    buildLog: join(root, 'build.log'),
    stamp: join(root, 'bin', '.complete.json'),
    lock: join(kubeEnvRoot(), `${key}.lock`),
  };
}

export function clustersDir(): string {
  return join(kubeEnvRoot(), 'clusters');
}

export function clusterDir(name: string): string {
  return join(clustersDir(), name);
}
