import { isBeingDeleted, isKeystoneAPIReady } from '../../../api/helpers.js';
import { findKeystoneAPI } from '../../dependants/keystone-api-access.js';
import type { AcPass } from '../context.js';
import { connectServiceUser } from './connect-service-user.js';
import { credentialSecrets, releaseSecret } from './remove-rotated-secrets.js';

/**
 * On deletion, best effort as upstream: with a Ready KeystoneAPI that is not itself going away and a
 * working login, every credential of this CR is revoked in Keystone; in any case the protection
 * finalizer leaves every Secret, which garbage collection then deletes with the CR (a consumer's
 * finalizer keeps its Secret until the consumer lets go). Deletion is never blocked on Keystone.
 */
export async function revokeOnDelete(ctx: AcPass) {
  const api = findKeystoneAPI(ctx.cache, ctx.cr.metadata.namespace ?? '');
  if (api && isKeystoneAPIReady(api) && !isBeingDeleted(api)) {
    ctx.api = api;
    try {
      await connectServiceUser(ctx);
    } catch (err) {
      ctx.log.info(
        { err: err instanceof Error ? err.message : String(err) },
        'no Keystone login: credentials not revoked',
      );
    }
  }
  if (!ctx.user) ctx.log.info('credentials of this CR are left to expire in Keystone');
  for (const s of await credentialSecrets(ctx)) {
    try {
      await releaseSecret(ctx, s, { delete: false });
    } catch (err) {
      // Keystone failing mid-way: the Secret is released anyway, the credential expires on its own.
      ctx.log.info({ err: err instanceof Error ? err.message : String(err) }, 'revocation failed');
      ctx.user = undefined;
      await releaseSecret(ctx, s, { delete: false });
    }
  }
  return undefined;
}
