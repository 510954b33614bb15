import { stop } from '@stackops/lib-common/pipeline';
import { KeystoneConditionTypes, KeystoneMessages } from '../../../api/conditions.js';
import { ensureServiceUser } from '../../../registration/service.js';
import { markFailed, markWaiting, readSecretKeyFromCache } from '../../dependants/conditions.js';
import type { KeystoneServicePass } from '../context.js';

/** Upstream waits 10 s for the service user's password Secret. */
const PASSWORD_SECRET_RECHECK_MS = 10_000;

/**
 * The user `serviceUser` with the password `secret[passwordSelector]`, in project `service` with
 * roles admin and service (KeystoneServiceOSUserReady). A missing Secret is a wait; a missing key
 * is an error that waits for the Secret to change (it is watched), without a hot retry.
 */
export async function registerServiceUser(ctx: KeystoneServicePass) {
  const type = KeystoneConditionTypes.KeystoneServiceOSUserReady;
  const spec = ctx.cr.spec;
  if (!ctx.identity) throw new Error('registerServiceUser runs after connectAdminClient');
  const password = readSecretKeyFromCache(
    ctx.cache,
    ctx.cr.metadata.namespace ?? '',
    spec.secret,
    spec.passwordSelector,
  );
  if (password.state === 'no-secret') {
    markWaiting(ctx.conditions, type, KeystoneMessages.KeystoneServiceOSUserReadyWaiting);
    return stop(PASSWORD_SECRET_RECHECK_MS);
  }
  if (password.state === 'no-key') {
    markFailed(ctx.conditions, type, KeystoneMessages.KeystoneServiceOSUserReadyError, password.detail);
    return stop();
  }
  try {
    await ensureServiceUser(
      ctx.identity,
      { username: spec.serviceUser, password: password.value },
      ctx.changes,
    );
  } catch (err) {
    markFailed(ctx.conditions, type, KeystoneMessages.KeystoneServiceOSUserReadyError, err);
    throw err;
  }
  ctx.conditions.markTrue(type, KeystoneMessages.KeystoneServiceOSUserReady, spec.serviceUser);
  return undefined;
}
