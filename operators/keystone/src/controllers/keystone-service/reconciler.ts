import { Reason, unknownCondition } from '@stackops/lib-common/conditions';
import type { Reconciler } from '@stackops/lib-common/runtime';
import { KeystoneMessages as M, KeystoneConditionTypes as T } from '../../api/conditions.js';
import { KeystoneFinalizers } from '../../api/finalizers.js';
import { KeystoneKinds } from '../../api/group.js';
import type { KeystoneService, KeystoneServiceStatus } from '../../api/keystone-service.js';
import type { IdentityClientPool } from '../../identity/client-pool.js';
import { dependantReconciler } from '../dependants/reconciler.js';
import type { KeystoneServicePass } from './context.js';
import { apiFinalizerStep } from './steps/api-finalizer.js';
import { catalogServiceStep } from './steps/catalog-service.js';
import { releaseParentsStep } from './steps/release-parents.js';
import { renamedUserStep } from './steps/renamed-user.js';
import { serviceUserStep } from './steps/service-user.js';
import { deleteRegistrationStep } from './steps/unregister.js';

/**
 * KeystoneService: registers the catalog service, and its user in project `service` with roles
 * admin and service; on deletion removes both, then releases `openstack.org/keystoneservice-<name>`
 * on the KeystoneAPI and its own finalizer.
 */
export function keystoneServiceReconciler(pool: IdentityClientPool): Reconciler<KeystoneService> {
  return dependantReconciler<KeystoneService, KeystoneServiceStatus, KeystoneServicePass>(
    {
      kind: KeystoneKinds.KeystoneService,
      finalizer: KeystoneFinalizers.KeystoneService,
      conditions: [
        unknownCondition(T.KeystoneServiceOSServiceReady, Reason.Init, M.KeystoneServiceOSServiceReadyInit),
        unknownCondition(T.KeystoneServiceOSUserReady, Reason.Init, M.KeystoneServiceOSUserReadyInit),
      ],
      initialStatus: (cr, previous) => ({ ...previous, observedGeneration: cr.metadata.generation ?? 0 }),
      registered: (status) => Boolean(status.serviceID),
      register: [apiFinalizerStep, catalogServiceStep, serviceUserStep, renamedUserStep],
      unregister: [deleteRegistrationStep],
      releaseParents: releaseParentsStep,
    },
    pool,
  );
}
