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

/** Builds the cache when it is incomplete (< 1 s when it is not), then returns the binary's absolute path. */
export async function ensureBinary(name: BinaryName, options: BuildOptions = {}): Promise<string> {
  await ensureBinaries(options);
  return binaryPath(name);
}
