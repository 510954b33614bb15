import { ConditionType, Reason, Severity } from '@stackops/lib-common/conditions';
import { DB_ROOT_PASSWORD_KEY } from '@stackops/lib-common/database';
import { Kinds, type SecretObject, secretValue, stableHash } from '@stackops/lib-common/resources';
import { REQUEUE_MISSING_MS, type ReconcileState, type StepIo, type StepResult, stop } from '../state.js';

/** The keys placement needs from `spec.secret`, in a fixed order. */
export function requiredSecretKeys(s: ReconcileState): string[] {
  const sel = s.cr.spec.passwordSelectors;
  return [sel.service, sel.database, DB_ROOT_PASSWORD_KEY];
}

/** Upstream's wording, one clause per missing key, so the user sees every key to add at once. */
export function missingKeysMessage(secretName: string, missing: string[]): string {
  return `field not found in Secret: ${missing.map((k) => `field '${k}' not found in secret/${secretName}`).join(', ')}`;
}

/**
 * Checks the input Secret: it must exist and hold the service password, the database password and
 * the database root password. Missing Secret: waiting (checked again, and the Secret watch
 * re-triggers). Missing keys: an input error naming each key, not retried until the Secret changes.
 */
export async function reconcileInputSecret(s: ReconcileState, io: StepIo): Promise<StepResult> {
  const name = s.cr.spec.secret;
  const secret = io.cache.get<SecretObject>(Kinds.Secret, { name, namespace: s.cr.metadata.namespace! });
  if (!secret) {
    s.conditions.markFalse(
      ConditionType.InputReady,
      Reason.Error,
      Severity.Warning,
      'Input data resources missing',
    );
    return stop(REQUEUE_MISSING_MS);
  }
  const keys = requiredSecretKeys(s);
  const values = keys.map((k) => secretValue(secret, k) ?? '');
  const missing = keys.filter((_, i) => values[i] === '');
  if (missing.length > 0) {
    const message = missingKeysMessage(name, missing);
    s.conditions.markError(ConditionType.InputReady, message);
    io.event('Warning', 'InputError', message);
    return stop();
  }
  const [service = '', database = ''] = values;
  s.passwords = { service, database };
  s.dbSecretHash = stableHash(values.slice(1));
  s.inputHashes[name] = stableHash(values);
  s.conditions.markTrue(ConditionType.InputReady);
  return undefined;
}
