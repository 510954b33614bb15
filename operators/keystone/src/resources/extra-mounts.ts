import type { KeystoneAPISpec } from '../api/keystone-api.js';

type Json = Record<string, unknown>;

/** The propagation types keystone's pods answer to (upstream): the API pods are `Keystone`. */
export const KeystonePropagation = {
  api: 'Keystone',
  cron: 'KeystoneCron',
  bootstrap: 'KeystoneBootstrap',
  dbSync: 'DBSync',
  everywhere: 'All',
} as const;

/**
 * `extraMounts` as upstream propagates them: an `extraVol` without `propagation` goes to every pod
 * that takes extra mounts, one with `propagation` only where a listed type (or `All`) matches.
 * Upstream hands extra mounts to the API Deployment only (its Jobs and CronJob get none).
 */
export function extraMountsFor(
  extraMounts: KeystoneAPISpec['extraMounts'],
  propagation: string,
): { volumes: Json[]; mounts: Json[] } {
  const volumes: Json[] = [];
  const mounts: Json[] = [];
  for (const group of extraMounts ?? []) {
    for (const vol of group.extraVol) {
      const targets = vol.propagation ?? [];
      const applies =
        targets.length === 0 ||
        targets.includes(propagation) ||
        targets.includes(KeystonePropagation.everywhere);
      if (!applies) continue;
      volumes.push(...(vol.volumes as Json[]));
      mounts.push(...(vol.mounts as Json[]));
    }
  }
  return { volumes, mounts };
}
