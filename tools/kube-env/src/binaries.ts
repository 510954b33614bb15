import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { type BuildOptions, ensureBinaries } from './build/build.js';
import { cacheLayout } from './paths.js';

/** Every binary the cache holds, for tools outside kube-env that need one of them (tools/images: crane). */
export const binaryNames = [
  'etcd',
  'kube-apiserver',
  'kube-controller-manager',
  'kube-scheduler',
  'kubectl',
  'kwok',
  'kubelet',
  'kube-proxy',
  'helm',
  'crane',
  'coredns',
] as const;
export type BinaryName = (typeof binaryNames)[number];

export function isBinaryName(name: string): name is BinaryName {
  return (binaryNames as readonly string[]).includes(name);
}

/** Where a pinned binary lives in the cache (it may not be built yet: see `ensureBinary`). */
export function binaryPath(name: BinaryName): string {
  return join(cacheLayout().bin, name);
}

/**
 * The binary's absolute path: at once when it is in the cache (a build still running for the
 * others renames each binary into place when it is built, and the cache's folder is keyed by every
 * pinned version), else after building the cache (`force`: always rebuilt).
 */
export async function ensureBinary(name: BinaryName, options: BuildOptions = {}): Promise<string> {
  const path = binaryPath(name);
  if (!options.force && existsSync(path)) return path;
  await ensureBinaries(options);
  return path;
}
