import { stop } from '@stackops/lib-common/pipeline';
import { KeystoneConditionTypes, KeystoneMessages } from '../../../api/conditions.js';
import { KeystoneKinds } from '../../../api/group.js';
import { adminAuthSettings } from '../../../api/helpers.js';
import type { KeystoneService } from '../../../api/keystone-service.js';
import { describeOwner, isNotOwned, type Owner } from '../../../registration/ownership.js';
import { deleteOwnedUsers, ensureServiceUser, type ServiceUserGuard } from '../../../registration/service.js';
import { markFailed, markWaiting, readSecretKeyFromCache } from '../../dependants/conditions.js';
import { refuse } from '../../dependants/ownership.js';
import { type KeystoneServicePass, serviceOwnership } from '../context.js';

/** Upstream waits 10 s for the service user's password Secret. */
const PASSWORD_SECRET_RECHECK_MS = 10_000;

/**
 * The admin user is never a service user; a user of another KeystoneService is only used as is when
 * that one lives in this namespace, names the same user and reads its password from the same key.
 */
async function userGuard(ctx: KeystoneServicePass): Promise<ServiceUserGuard> {
  if (!ctx.api || !ctx.identity) throw new Error('registerServiceUser runs after connectAdminClient');
  const spec = ctx.cr.spec;
  const namespace = ctx.cr.metadata.namespace ?? '';
  return {
    adminUsername: adminAuthSettings(ctx.api).username,
    adminUserId: (await ctx.identity.currentToken()).user.id,
    mayShare: (other: Owner) => {
      if (other.namespace !== namespace) return false;
      const owner = ctx.cache.get<KeystoneService>(KeystoneKinds.KeystoneService, other);
      return (
        owner !== undefined &&
        !owner.metadata.deletionTimestamp &&
        owner.spec.serviceUser === spec.serviceUser &&
        owner.spec.secret === spec.secret &&
        owner.spec.passwordSelector === spec.passwordSelector
      );
    },
  };
}

/**
 * The user `serviceUser` with the password `secret[passwordSelector]`, in project `service` with
 * roles admin and service (KeystoneServiceOSUserReady), owned by this KeystoneService; its ID goes to
 * `status.userID`, and the user of a previous `serviceUser` is deleted. A missing Secret is a wait; a
 * missing key is an error that waits for the Secret to change (it is watched), without a hot retry;
 * the admin user, a user of another CR or one that existed before (not adopted) is refused.
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
  const own = serviceOwnership(ctx);
  const previousId = ctx.status.userID || undefined;
  try {
    const outcome = await ensureServiceUser(
      ctx.identity,
      { username: spec.serviceUser, password: password.value },
      { ...own, guard: await userGuard(ctx), ...(previousId ? { knownId: previousId } : {}) },
      ctx.changes,
    );
    const userId = outcome.sharedWith ? '' : outcome.user.id;
    if (previousId && previousId !== userId) {
      const why = ` (serviceUser is now ${spec.serviceUser})`;
      await deleteOwnedUsers(ctx.identity, { ids: [previousId], names: [] }, own.owner, ctx.changes, why);
    }
    ctx.status.userID = userId;
    const who = outcome.sharedWith
      ? `${spec.serviceUser} (shared with ${describeOwner(outcome.sharedWith)})`
      : spec.serviceUser;
    ctx.conditions.markTrue(type, KeystoneMessages.KeystoneServiceOSUserReady, who);
  } catch (err) {
    if (isNotOwned(err)) return refuse(ctx, type, err);
    markFailed(ctx.conditions, type, KeystoneMessages.KeystoneServiceOSUserReadyError, err);
    throw err;
  }
  return undefined;
}
