import { randomBytes } from 'node:crypto';
import { Kinds } from '@stackops/lib-common/client';
import { ConditionType } from '@stackops/lib-common/conditions';
import {
  getOrCreateSecret,
  type SecretObject,
  secretValue,
  stableHash,
  withControllerReference,
} from '@stackops/lib-common/objects';
import type { StepResult } from '@stackops/lib-common/pipeline';
import { keystoneGroupLabels } from '../../../resources/names.js';
import type { KeystoneApiPass } from '../context.js';

/**
 * Upstream MariaDBAccount's password Secret: `<account>-db-secret`, key `DatabasePassword` (an
 * SQL account may hold `_`, a Secret name may not).
 */
const accountSecretName = (account: string): string =>
  `${account.toLowerCase().replaceAll('_', '-')}-db-secret`;
const ACCOUNT_PASSWORD_KEY = 'DatabasePassword';

/**
 * The keystone database account's password, reported in MariaDBAccountReady: from `spec.secret`
 * when it has the `passwordSelectors.database` key (older install_yamls' osp-secret); else
 * generated once (32 hex characters) into an owned Secret `<databaseAccount>-db-secret`, as
 * upstream's MariaDBAccount does, so install_yamls' osp-secret as it is today deploys unchanged.
 * The generated password is never rewritten.
 */
export async function ensureDatabaseAccount(ctx: KeystoneApiPass): Promise<StepResult> {
  const fromInput = ctx.passwords?.database;
  if (fromInput) {
    ctx.databaseAccount = { secret: ctx.spec.secret, key: ctx.spec.passwordSelectors.database };
    ctx.conditions.markTrue(ConditionType.MariaDBAccountReady);
    return undefined;
  }
  const name = accountSecretName(ctx.spec.databaseAccount);
  const namespace = ctx.cr.metadata.namespace ?? '';
  let account: SecretObject;
  try {
    const desired = withControllerReference(ctx.cr, Kinds.Secret, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name, namespace, labels: keystoneGroupLabels(ctx.cr) },
      type: 'Opaque',
      stringData: { [ACCOUNT_PASSWORD_KEY]: randomBytes(16).toString('hex') },
    } as SecretObject);
    account = await getOrCreateSecret(
      ctx.client,
      desired,
      ctx.cache.get<SecretObject>(Kinds.Secret, { name, namespace }),
    );
  } catch (err) {
    ctx.conditions.markError(ConditionType.MariaDBAccountReady, err);
    throw err;
  }
  const password = secretValue(account, ACCOUNT_PASSWORD_KEY);
  if (!password) {
    ctx.conditions.markError(
      ConditionType.MariaDBAccountReady,
      `missing key ${ACCOUNT_PASSWORD_KEY} in Secret ${name}`,
    );
    throw new Error(`missing key ${ACCOUNT_PASSWORD_KEY} in Secret ${name}`);
  }
  ctx.passwords = { admin: ctx.passwords?.admin ?? '', root: ctx.passwords?.root ?? '', database: password };
  ctx.databaseAccount = { secret: name, key: ACCOUNT_PASSWORD_KEY };
  ctx.inputs[name] = stableHash(password);
  ctx.conditions.markTrue(ConditionType.MariaDBAccountReady);
  return undefined;
}
