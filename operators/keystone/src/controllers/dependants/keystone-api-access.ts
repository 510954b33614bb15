import type { Conditions } from '@stackops/lib-common/conditions';
import type { CacheReader } from '@stackops/lib-common/runtime';
import { KeystoneConditionTypes, KeystoneMessages } from '../../api/conditions.js';
import { KeystoneKinds } from '../../api/group.js';
import {
  adminAuthSettings,
  isBeingDeleted,
  isKeystoneAPIReady,
  KeystoneAPILookupError,
  selectKeystoneAPI,
} from '../../api/helpers.js';
import type { KeystoneAPI } from '../../api/keystone-api.js';
import type { IdentityClient } from '../../identity/client.js';
import type { IdentityClientPool } from '../../identity/client-pool.js';
import { markFailed, markWaiting, readSecretKeyFromCache } from './conditions.js';

/** How long a dependant waits before looking at its KeystoneAPI again (upstream: 5 s and 10 s). */
const KEYSTONE_API_RECHECK_MS = 5_000;
const ADMIN_SECRET_RECHECK_MS = 10_000;

/** The KeystoneAPI of a namespace, or undefined; more than one is an error (upstream supports one). */
export function findKeystoneAPI(cache: CacheReader, namespace: string): KeystoneAPI | undefined {
  try {
    return selectKeystoneAPI(cache.list<KeystoneAPI>(KeystoneKinds.KeystoneAPI, { namespace }), namespace);
  } catch (err) {
    if (err instanceof KeystoneAPILookupError && err.reason === 'NotFound') return undefined;
    throw err;
  }
}

export type AdminAccess =
  | { state: 'ready'; identity: IdentityClient; region: string }
  | { state: 'waiting'; requeueAfterMs: number };

/**
 * Upstream `GetAdminServiceClient`: the admin user of the KeystoneAPI (adminUser / adminProject,
 * domain Default, password `secret[passwordSelectors.admin]`), authenticated with system scope
 * against `status.apiEndpoints.internal` (project scope when the admin has no system role).
 * Sets AdminServiceClientReady. A missing Secret waits; a missing key or a failed login is an error.
 */
export async function adminAccess(
  cache: CacheReader,
  pool: IdentityClientPool,
  api: KeystoneAPI,
  conditions: Conditions,
): Promise<AdminAccess> {
  const type = KeystoneConditionTypes.AdminServiceClientReady;
  const failed = (err: unknown) => {
    markFailed(conditions, type, KeystoneMessages.AdminServiceClientReadyError, err);
    return err;
  };
  let settings: ReturnType<typeof adminAuthSettings>;
  try {
    settings = adminAuthSettings(api);
  } catch (err) {
    // Ready but without an internal endpoint: nothing to authenticate against.
    throw failed(err);
  }
  const { secretName, key } = settings.password;
  const password = readSecretKeyFromCache(cache, api.metadata.namespace ?? '', secretName, key);
  if (password.state === 'no-secret') {
    markWaiting(conditions, type, KeystoneMessages.AdminServiceClientReadyWaiting);
    return { state: 'waiting', requeueAfterMs: ADMIN_SECRET_RECHECK_MS };
  }
  if (password.state === 'no-key') throw failed(new Error(password.detail));
  // An https KeystoneAPI: its CA bundle is trusted (never verification skipped); without one, the
  // runtime's trust store.
  let caBundle: string | undefined;
  if (settings.caBundle) {
    const { secretName: caSecret, key: caKey } = settings.caBundle;
    const ca = readSecretKeyFromCache(cache, api.metadata.namespace ?? '', caSecret, caKey);
    if (ca.state === 'no-secret') {
      markWaiting(conditions, type, KeystoneMessages.AdminServiceClientReadyWaiting);
      return { state: 'waiting', requeueAfterMs: ADMIN_SECRET_RECHECK_MS };
    }
    if (ca.state === 'no-key') throw failed(new Error(ca.detail));
    caBundle = ca.value;
  }
  const identity = pool.get({
    authUrl: settings.authUrl,
    username: settings.username,
    password: password.value,
    userDomainName: settings.userDomainName,
    projectName: settings.projectName,
    projectDomainName: settings.projectDomainName,
    ...(caBundle ? { caBundle } : {}),
  });
  try {
    await identity.currentToken();
  } catch (err) {
    throw failed(err);
  }
  conditions.markTrue(type, KeystoneMessages.AdminServiceClientReady);
  return { state: 'ready', identity, region: settings.region };
}

/** What a KeystoneService/KeystoneEndpoint reconcile may do, given its KeystoneAPI. */
export type KeystoneApiGate =
  /** Being deleted with nothing to unregister, or keystone itself is going away: drop finalizers only. */
  | { next: 'release-only'; api: KeystoneAPI | undefined }
  | { next: 'wait'; requeueAfterMs: number }
  | { next: 'proceed'; api: KeystoneAPI };

/**
 * The branching shared by both dependants. `registered` says whether the object has anything in
 * Keystone (a service ID, endpoint IDs). Differs from upstream in one case: a dependant being
 * deleted whose KeystoneAPI is already gone releases its finalizers (upstream retried forever, which
 * hung namespace deletion when the KeystoneAPI was external and went first).
 */
export function gateOnKeystoneAPI(
  cache: CacheReader,
  namespace: string,
  deleting: boolean,
  registered: boolean,
  conditions: Conditions,
): KeystoneApiGate {
  const type = KeystoneConditionTypes.KeystoneAPIReady;
  let api: KeystoneAPI | undefined;
  try {
    api = findKeystoneAPI(cache, namespace);
  } catch (err) {
    markFailed(conditions, type, KeystoneMessages.KeystoneAPIReadyError, err);
    throw err;
  }
  if (!api) {
    if (deleting) return { next: 'release-only', api: undefined };
    markFailed(conditions, type, KeystoneMessages.KeystoneAPIReadyNotFound, undefined);
    return { next: 'wait', requeueAfterMs: KEYSTONE_API_RECHECK_MS };
  }
  // When the KeystoneAPI goes too, never call it: it may already be half torn down, and waiting for
  // it would hang the deletion of the namespace.
  if (deleting && (isBeingDeleted(api) || !registered)) return { next: 'release-only', api };
  // A KeystoneAPI being deleted may still say Ready while its endpoints are gone: wait, do not fail.
  if (!isKeystoneAPIReady(api) || isBeingDeleted(api)) {
    markWaiting(conditions, type, KeystoneMessages.KeystoneAPIReadyWaiting);
    return { next: 'wait', requeueAfterMs: KEYSTONE_API_RECHECK_MS };
  }
  conditions.markTrue(type, KeystoneMessages.KeystoneAPIReady);
  return { next: 'proceed', api };
}
