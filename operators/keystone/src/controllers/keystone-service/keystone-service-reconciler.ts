import { Reason, unknownCondition } from '@stackops/lib-common/conditions';
import { reports } from '@stackops/lib-common/pipeline';
import type { Reconciler } from '@stackops/lib-common/runtime';
import { KeystoneMessages as M, KeystoneConditionTypes as T } from '../../api/conditions.js';
import { KeystoneFinalizers } from '../../api/finalizers.js';
import { KeystoneKinds } from '../../api/group.js';
import type { KeystoneService, KeystoneServiceStatus } from '../../api/keystone-service.js';
import type { IdentityClientPool } from '../../identity/client-pool.js';
import { dependantReconciler } from '../dependants/dependant-reconciler.js';
import type { KeystoneServicePass } from './context.js';
import { holdKeystoneAPI } from './steps/hold-keystone-api.js';
import { registerCatalogService } from './steps/register-catalog-service.js';
import { registerServiceUser } from './steps/register-service-user.js';
import { releaseKeystoneAPI } from './steps/release-keystone-api.js';
import { unregisterService } from './steps/unregister-service.js';

/**
 * KeystoneService: registers the catalog service, and its user in project `service` with roles
 * admin and service, both owned by it (ADR 0012) and re-checked every resync period; on deletion
 * removes what it owns, then releases `openstack.org/keystoneservice-<name>` on the KeystoneAPI and
 * its own finalizer.
 */
export function keystoneServiceReconciler(
  pool: IdentityClientPool,
  resyncMs?: number,
): Reconciler<KeystoneService> {
  return dependantReconciler<KeystoneService, KeystoneServiceStatus, KeystoneServicePass>(
    {
      kind: KeystoneKinds.KeystoneService,
      finalizer: KeystoneFinalizers.KeystoneService,
      conditions: [
        unknownCondition(T.KeystoneServiceOSServiceReady, Reason.Init, M.KeystoneServiceOSServiceReadyInit),
        unknownCondition(T.KeystoneServiceOSUserReady, Reason.Init, M.KeystoneServiceOSUserReadyInit),
      ],
      initialStatus: (cr, previous) => ({ ...previous, observedGeneration: cr.metadata.generation ?? 0 }),
      registered: (status) => Boolean(status.serviceID || status.userID),
      register: [
        reports(T.KeystoneServiceOSServiceReady, holdKeystoneAPI),
        reports(T.KeystoneServiceOSServiceReady, registerCatalogService),
        reports(T.KeystoneServiceOSUserReady, registerServiceUser),
      ],
      unregister: [unregisterService],
      releaseParents: releaseKeystoneAPI,
    },
    pool,
    resyncMs,
  );
}
