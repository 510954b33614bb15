import { Kinds } from '@stackops/lib-common/client';
import { ConditionType, Reason, Severity } from '@stackops/lib-common/conditions';
import { DB_ROOT_PASSWORD_KEY } from '@stackops/lib-common/database';
import { type SecretObject, secretValue, stableHash } from '@stackops/lib-common/objects';
import { type StepResult, stop } from '@stackops/lib-common/pipeline';
import { type PlacementApiPass, RECHECK_AFTER_MS } from '../context.js';

/**
 * The keys placement needs from `spec.secret`, in a fixed order: the service password, the
 * database account's password only when `passwordSelectors.database` names a key (else it may be
 * generated), and the MariaDB root password the db-create Job uses.
 */
function requiredSecretKeys(ctx: PlacementApiPass): string[] {
  const sel = ctx.cr.spec.passwordSelectors;
  return [sel.service, ...(sel.database ? [sel.database] : []), DB_ROOT_PASSWORD_KEY];
}

/**
 * Upstream's wording for one key; several keys are named in one clause, so the user sees every
 * key to add at once and the message stays short enough not to be cut.
 */
function missingKeysMessage(secretName: string, missing: string[]): string {
  const keys = missing.map((k) => `'${k}'`).join(', ');
  if (missing.length === 1)
    return `field not found in Secret: field ${keys} not found in secret/${secretName}`;
  return `fields ${keys} not found in secret/${secretName}`;
}

/**
 * Checks the input Secret: it must exist and hold the keys above. Missing Secret: waiting (checked again, and the Secret watch
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
      'Input data resources missing: Secret %s',
      name,
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
  ctx.inputSecret = secret;
  ctx.passwords = { service: values[0] ?? '', database: '' };
  ctx.inputs[name] = stableHash(values);
  ctx.conditions.markTrue(ConditionType.InputReady);
  return undefined;
}
