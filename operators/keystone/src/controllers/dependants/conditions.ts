import { Kinds } from '@stackops/lib-common/client';
import { type Conditions, Reason, Severity } from '@stackops/lib-common/conditions';
import { type SecretObject, secretValue } from '@stackops/lib-common/objects';
import type { CacheReader } from '@stackops/lib-common/runtime';

/** False / Error / Warning with `format` filled with `detail` (an Error prints its message). */
export function markFailed(conditions: Conditions, type: string, format: string, detail: unknown): void {
  conditions.markFalse(type, Reason.Error, Severity.Warning, format, detail);
}

/** False / Requested / Info: waiting for something that is expected to appear. */
export function markWaiting(conditions: Conditions, type: string, message: string): void {
  conditions.markFalse(type, Reason.Requested, Severity.Info, message);
}

export type SecretKeyRead =
  | { state: 'found'; value: string }
  | { state: 'no-secret' }
  | { state: 'no-key'; detail: string };

/**
 * One key of a Secret from the cache, decoded as every stackops operator decodes it (lib-common's
 * `secretValue`: one trailing newline dropped, so `echo pw | base64` gives the same password to
 * Keystone and to the services using it). The value is never logged or put in a condition.
 */
export function readSecretKeyFromCache(
  cache: CacheReader,
  namespace: string,
  name: string,
  key: string,
): SecretKeyRead {
  const secret = cache.get<SecretObject>(Kinds.Secret, { namespace, name });
  if (!secret) return { state: 'no-secret' };
  const value = secretValue(secret, key);
  if (value === undefined) return { state: 'no-key', detail: `Secret ${name} has no key ${key}` };
  return { state: 'found', value };
}
