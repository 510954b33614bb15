import { Kinds } from '@stackops/lib-common/client';
import { ConditionType, Reason, Severity } from '@stackops/lib-common/conditions';
import { DB_ROOT_PASSWORD_KEY } from '@stackops/lib-common/database';
import { type SecretObject, secretValue, stableHash } from '@stackops/lib-common/objects';
import { type StepResult, stop } from '@stackops/lib-common/pipeline';
import { type PlacementApiPass, RECHECK_AFTER_MS } from '../context.js';

/** The keys placement needs from `spec.secret`, in a fixed order. */
function requiredSecretKeys(ctx: PlacementApiPass): string[] {
  const sel = ctx.cr.spec.passwordSelectors;
  return [sel.service, sel.database, DB_ROOT_PASSWORD_KEY];
}

/** Upstream's wording, one clause per missing key, so the user sees every key to add at once. */
function missingKeysMessage(secretName: string, missing: string[]): string {
  return `field not found in Secret: ${missing.map((k) => `field '${k}' not found in secret/${secretName}`).join(', ')}`;
}

/**
 * Checks the input Secret: it must exist and hold the service password, the database password and
 * the database root password. Missing Secret: waiting (checked again, and the Secret watch
 * re-triggers). Missing keys: an input error naming each key, not retried until the Secret changes.
 */
export async function checkInputSecret(ctx: PlacementApiPass): Promise<StepResult> {
  const name = ctx.cr.spec.secret;
  const secret = ctx.cache.get<SecretObject>(Kinds.Secret, { name, namespace: ctx.cr.metadata.namespace! });
  if (!secret) {
    ctx.conditions.markFalse(
      ConditionType.InputReady,
      Reason.Error,
      Severity.Warning,
      'Input data resources missing',
    );
    return stop(RECHECK_AFTER_MS);
  }
  const keys = requiredSecretKeys(ctx);
  const values = keys.map((k) => secretValue(secret, k) ?? '');
  const missing = keys.filter((_, i) => values[i] === '');
  if (missing.length > 0) {
    const message = missingKeysMessage(name, missing);
    ctx.conditions.markError(ConditionType.InputReady, message);
    ctx.event('Warning', 'InputError', message);
    return stop();
  }
  const [service = '', database = ''] = values;
  ctx.passwords = { service, database };
  ctx.dbSecretHash = stableHash(values.slice(1));
  ctx.inputs[name] = stableHash(values);
  ctx.conditions.markTrue(ConditionType.InputReady);
  return undefined;
}
