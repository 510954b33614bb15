import { parseDuration } from '@stackops/lib-common/runtime';

/** The operator's environment variable for the drift re-check period of KeystoneService/KeystoneEndpoint. */
export const RESYNC_PERIOD_ENV = 'KEYSTONE_RESYNC_PERIOD';

/** A few minutes: drift is repaired soon, and an idle operator makes one round of reads per object per period. */
export const DEFAULT_RESYNC_MS = 5 * 60_000;

/** `KEYSTONE_RESYNC_PERIOD` as a Go-style duration (`5m`, `90s`); an invalid or zero value stops the start. */
export function resyncPeriodFromEnv(env: Readonly<Record<string, string | undefined>>): number {
  const raw = env[RESYNC_PERIOD_ENV];
  if (raw === undefined || raw === '') return DEFAULT_RESYNC_MS;
  const ms = parseDuration(raw);
  if (ms <= 0) throw new RangeError(`${RESYNC_PERIOD_ENV}: must be more than 0, got "${raw}"`);
  return ms;
}
