import { Severity } from '@stackops/lib-common/conditions';
import { stop } from '@stackops/lib-common/pipeline';
import { adminAuthSettings } from '../../../api/helpers.js';
import { ApplicationCredentialMessages as M } from '../../../api/keystone-application-credential.js';
import { isIdentityUnauthorized } from '../../../identity/errors.js';
import { readSecretKeyFromCache } from '../../dependants/conditions.js';
import { type AcPass, markAcFalse } from '../context.js';

/** How long a pass waits for a missing Secret or a user Keystone does not know yet. */
const SECRET_RECHECK_MS = 10_000;
const LOGIN_RECHECK_MS = 30_000;

/**
 * Keystone as `spec.userName` (domain Default) with the password at `spec.secret[spec.passwordSelector]`,
 * scoped to project service (upstream `GetUserServiceClient`), and the user's ID from its token.
 * A missing Secret waits; a missing key is bad input (severity Error, an Event naming the field);
 * a refused login is retried (the KeystoneService creating the user may not have run yet).
 */
export async function connectServiceUser(ctx: AcPass) {
  if (!ctx.api) throw new Error('connectServiceUser runs after checkKeystoneAPI');
  const { spec } = ctx.cr;
  const namespace = ctx.cr.metadata.namespace ?? '';
  const password = readSecretKeyFromCache(ctx.cache, namespace, spec.secret, spec.passwordSelector);
  if (password.state === 'no-secret') {
    markAcFalse(ctx, Severity.Info, 'SecretNotFound', M.waiting, spec.secret);
    return stop(SECRET_RECHECK_MS);
  }
  if (password.state === 'no-key') {
    markAcFalse(
      ctx,
      Severity.Error,
      'InvalidSpec',
      M.error,
      `spec.passwordSelector: Secret ${spec.secret} has no key ${spec.passwordSelector}`,
    );
    return stop();
  }
  const settings = adminAuthSettings(ctx.api);
  let caBundle: string | undefined;
  if (settings.caBundle) {
    const ca = readSecretKeyFromCache(
      ctx.cache,
      namespace,
      settings.caBundle.secretName,
      settings.caBundle.key,
    );
    if (ca.state !== 'found') {
      markAcFalse(ctx, Severity.Info, 'SecretNotFound', M.waiting, settings.caBundle.secretName);
      return stop(SECRET_RECHECK_MS);
    }
    caBundle = ca.value;
  }
  const identity = ctx.pool.get({
    authUrl: settings.authUrl,
    username: spec.userName,
    password: password.value,
    userDomainName: 'Default',
    scope: 'project',
    projectName: 'service',
    projectDomainName: 'Default',
    ...(caBundle ? { caBundle } : {}),
  });
  try {
    const token = await identity.currentToken();
    ctx.user = { identity, userId: token.user.id };
  } catch (err) {
    if (!isIdentityUnauthorized(err)) throw err;
    markAcFalse(
      ctx,
      Severity.Warning,
      'LoginFailed',
      M.error,
      `Keystone refused user ${spec.userName} (spec.userName) with the password of spec.secret ${spec.secret} on project service`,
    );
    return stop(LOGIN_RECHECK_MS);
  }
  return undefined;
}
