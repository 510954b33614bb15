import { randomBytes } from 'node:crypto';
import { Kinds } from '@stackops/lib-common/client';
import { ConditionType } from '@stackops/lib-common/conditions';
import { DB_ROOT_PASSWORD_KEY } from '@stackops/lib-common/database';
import {
  getOrCreateSecret,
  type SecretObject,
  secretValue,
  stableHash,
  withControllerReference,
} from '@stackops/lib-common/objects';
import { groupLabel, ownerLabels } from '@stackops/lib-common/openstack';
import type { StepResult } from '@stackops/lib-common/pipeline';
import { PLACEMENT_SERVICE_NAME } from '../../api/constants.js';
import type { PlacementApiPass } from '../context.js';

/** The key older install_yamls osp-secrets carry the placement database password under. */
export const LEGACY_DATABASE_PASSWORD_KEY = 'PlacementDatabasePassword';
/**
 * Upstream MariaDBAccount's password Secret: `<account>-db-secret`, key `DatabasePassword`. The
 * account is an SQL name (underscores allowed), the Secret a DNS name: `_` becomes `-`.
 */
const accountSecretName = (account: string): string =>
  `${account.toLowerCase().replaceAll('_', '-')}-db-secret`;
const ACCOUNT_PASSWORD_KEY = 'DatabasePassword';

/** 32 hex characters: no character a shell or a connection URL would treat specially. */
const generatePassword = (): string => randomBytes(16).toString('hex');

/** The generated account Secret, created once and then only read (its password never changes). */
function ensureAccountSecret(ctx: PlacementApiPass, name: string): Promise<SecretObject> {
  const namespace = ctx.cr.metadata.namespace!;
  const secret = withControllerReference(ctx.cr, Kinds.Secret, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace, labels: ownerLabels(ctx.cr, groupLabel(PLACEMENT_SERVICE_NAME)) },
    type: 'Opaque',
    stringData: { [ACCOUNT_PASSWORD_KEY]: generatePassword() },
  } as SecretObject);
  return getOrCreateSecret(
    ctx.client,
    secret,
    ctx.cache.get<SecretObject>(Kinds.Secret, { name, namespace }),
  );
}

/**
 * The database account's password (upstream: mariadb-operator's MariaDBAccount), reported in
 * MariaDBAccountReady. From `spec.secret` when `passwordSelectors.database` names a key or the
 * Secret has `PlacementDatabasePassword` (older install_yamls); otherwise generated once into an
 * owned Secret `<databaseAccount>-db-secret` (`DatabasePassword`), so install_yamls' osp-secret
 * as it is today deploys unchanged.
 */
export async function ensureDatabaseAccount(ctx: PlacementApiPass): Promise<StepResult> {
  const { cr } = ctx;
  const input = ctx.inputSecret;
  if (!input) throw new Error('ensureDatabaseAccount runs after checkInputSecret');
  const selector = cr.spec.passwordSelectors.database;
  let source: { secret: string; key: string; password: string };
  const fromInput = secretValue(input, selector ?? LEGACY_DATABASE_PASSWORD_KEY);
  if (fromInput) {
    source = { secret: cr.spec.secret, key: selector ?? LEGACY_DATABASE_PASSWORD_KEY, password: fromInput };
  } else {
    const name = accountSecretName(cr.spec.databaseAccount);
    let account: SecretObject;
    try {
      account = await ensureAccountSecret(ctx, name);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      ctx.conditions.markError(ConditionType.MariaDBAccountReady, message);
      throw err;
    }
    source = {
      secret: name,
      key: ACCOUNT_PASSWORD_KEY,
      password: secretValue(account, ACCOUNT_PASSWORD_KEY) ?? '',
    };
  }
  ctx.databaseAccount = { secret: source.secret, key: source.key };
  ctx.passwords = { service: ctx.passwords?.service ?? '', database: source.password };
  const root = secretValue(input, DB_ROOT_PASSWORD_KEY) ?? '';
  ctx.dbSecretHash = stableHash([source.password, root]);
  ctx.conditions.markTrue(ConditionType.MariaDBAccountReady);
  return undefined;
}
