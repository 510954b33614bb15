import { Reason, unknownCondition } from '@stackops/lib-common/conditions';
import { pipeline } from '@stackops/lib-common/pipeline';
import type { Reconciler } from '@stackops/lib-common/runtime';
import { KeystoneConditionTypes, KeystoneMessages } from '../../api/conditions.js';
import {
  ApplicationCredentialConditionType,
  ApplicationCredentialFinalizers,
  ApplicationCredentialMessages,
  type KeystoneApplicationCredential,
  KeystoneApplicationCredentialKind,
  type KeystoneApplicationCredentialStatus,
} from '../../api/keystone-application-credential.js';
import type { IdentityClientPool } from '../../identity/client-pool.js';
import type { AcPass } from './context.js';
import { checkKeystoneAPI } from './steps/check-keystone-api.js';
import { connectServiceUser } from './steps/connect-service-user.js';
import { ensureCredential } from './steps/ensure-credential.js';
import { removeRotatedSecrets } from './steps/remove-rotated-secrets.js';
import { revokeOnDelete } from './steps/revoke-on-delete.js';

/**
 * KeystoneApplicationCredential: once the namespace's KeystoneAPI is Ready, logs in as the service
 * user, creates (or rotates) its application credential into an immutable Secret, and revokes the
 * credentials of Secrets no longer current, previous or held by a consumer. On deletion it revokes
 * them all (best effort) and releases the Secrets to garbage collection.
 */
export function keystoneApplicationCredentialReconciler(
  pool: IdentityClientPool,
): Reconciler<KeystoneApplicationCredential> {
  return pipeline<KeystoneApplicationCredential, KeystoneApplicationCredentialStatus, AcPass>({
    kind: KeystoneApplicationCredentialKind,
    conditions: [
      unknownCondition(
        KeystoneConditionTypes.KeystoneAPIReady,
        Reason.Init,
        KeystoneMessages.KeystoneAPIReadyInit,
      ),
      unknownCondition(ApplicationCredentialConditionType, Reason.Init, ApplicationCredentialMessages.init),
    ],
    context: (pass) => Object.assign(pass, { pool }) as AcPass,
    steps: [checkKeystoneAPI, connectServiceUser, ensureCredential, removeRotatedSecrets],
    finalizer: { name: ApplicationCredentialFinalizers.cr, cleanup: [revokeOnDelete] },
  });
}
