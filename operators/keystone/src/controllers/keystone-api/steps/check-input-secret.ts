import { Kinds } from '@stackops/lib-common/client';
import { ConditionType, Reason, Severity } from '@stackops/lib-common/conditions';
import {
  MissingSecretKeyError,
  type SecretObject,
  secretValue,
  stableHash,
  verifySecret,
} from '@stackops/lib-common/objects';
import { passwordProblem } from '@stackops/lib-common/openstack';
import { type StepResult, stop } from '@stackops/lib-common/pipeline';
import { DEFAULT_DATABASE_KEY, inputSecretKeys } from '../../../config/spec.js';
import { type KeystoneApiPass, RECHECK_AFTER_MS } from '../context.js';

/** How long to wait before looking at a broken input Secret again (its watch usually comes first). */
const BROKEN_INPUT_RETRY_MS = 30_000;

/**
 * The input Secret has the admin password and (for the db-create Job) the MariaDB root password,
 * maybe the database password, and the passwords pass upstream's rule. A missing Secret is a
 * wait; a missing key or a bad password names the key. External mode needs only the admin password.
 */
export async function checkInputSecret(ctx: KeystoneApiPass): Promise<StepResult> {
  const keys = inputSecretKeys(ctx.spec);
  // The database password is optional: without it the account's password is generated (upstream
  // takes it from mariadb-operator's MariaDBAccount; install_yamls' osp-secret no longer has it).
  const wanted = ctx.spec.externalKeystoneAPI ? [keys.admin] : [keys.admin, keys.root];
  const ref = { name: ctx.spec.secret, namespace: ctx.cr.metadata.namespace ?? '' };
  let verified: Awaited<ReturnType<typeof verifySecret>>;
  try {
    const current = ctx.cache.get<SecretObject>(Kinds.Secret, ref) ?? null;
    verified = await verifySecret(ctx.client, ref, wanted, current);
  } catch (err) {
    if (!(err instanceof MissingSecretKeyError)) throw err;
    ctx.conditions.markError(ConditionType.InputReady, err.message);
    return stop(BROKEN_INPUT_RETRY_MS);
  }
  if (!verified.found) {
    ctx.conditions.markFalse(
      ConditionType.InputReady,
      'Error',
      'Warning',
      'Input data resources missing: Secret %s',
      ref.name,
    );
    return stop(RECHECK_AFTER_MS);
  }
  const databasePassword = ctx.spec.externalKeystoneAPI
    ? undefined
    : secretValue(verified.secret, keys.database);
  // Only the default key may be absent (then the password is generated): a key the user chose and
  // the Secret lacks is a mistake, not a request for a generated password.
  if (
    databasePassword === undefined &&
    !ctx.spec.externalKeystoneAPI &&
    keys.database !== DEFAULT_DATABASE_KEY
  ) {
    const detail = `spec.passwordSelectors.database: Secret ${ref.name} has no key ${keys.database}`;
    ctx.conditions.markFalse(
      ConditionType.InputReady,
      Reason.Error,
      Severity.Error,
      'Input data error occurred %s',
      detail,
    );
    ctx.event('Warning', 'MissingSecretKey', detail);
    return stop(BROKEN_INPUT_RETRY_MS);
  }
  const checked: [string, string][] = [
    [keys.admin, verified.values[keys.admin] ?? ''],
    ...(databasePassword !== undefined ? [[keys.database, databasePassword] as [string, string]] : []),
  ];
  for (const [key, value] of checked) {
    const problem = passwordProblem(value);
    if (problem) {
      // upstream's exact text in the condition; the Event says which key
      ctx.conditions.markError(ConditionType.InputReady, problem);
      ctx.event('Warning', 'InvalidPassword', `key ${key} of Secret ${ref.name}: ${problem}`);
      return stop(BROKEN_INPUT_RETRY_MS);
    }
  }
  ctx.passwords = {
    admin: verified.values[keys.admin] ?? '',
    database: databasePassword ?? '',
    root: verified.values[keys.root] ?? '',
  };
  // Only what the pods depend on feeds the input hash (the root password only concerns db-create).
  ctx.inputs[ctx.spec.secret] = stableHash([ctx.passwords.admin, ctx.passwords.database]);
  ctx.conditions.markTrue(ConditionType.InputReady);
  return undefined;
}
