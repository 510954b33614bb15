import { ConditionType, Reason, unknownCondition } from '@stackops/lib-common/conditions';
import { reports } from '@stackops/lib-common/pipeline';
import type { Reconciler } from '@stackops/lib-common/runtime';
import { KeystoneMessages as M, KeystoneConditionTypes as T } from '../../api/conditions.js';
import { KeystoneFinalizers } from '../../api/finalizers.js';
import { KeystoneKinds } from '../../api/group.js';
import type { KeystoneEndpoint } from '../../api/keystone-endpoint.js';
import type { IdentityClientPool } from '../../identity/client-pool.js';
import { dependantReconciler } from '../dependants/dependant-reconciler.js';
import type { KeystoneEndpointPass, KeystoneEndpointPassStatus } from './context.js';
import { holdParents } from './steps/hold-parents.js';
import { registerEndpoints } from './steps/register-endpoints.js';
import { releaseParents } from './steps/release-parents.js';
import { unregisterEndpoints } from './steps/unregister-endpoints.js';
import { waitForKeystoneService } from './steps/wait-for-keystone-service.js';

/**
 * KeystoneEndpoint: one endpoint per interface in the KeystoneAPI's region for the service of the
 * KeystoneService named by `spec.serviceName`; holds `openstack.org/keystoneendpoint-<name>` on
 * that KeystoneService and on the KeystoneAPI while its endpoints exist, and deletes them before
 * releasing those finalizers.
 */
export function keystoneEndpointReconciler(
  pool: IdentityClientPool,
  resyncMs?: number,
): Reconciler<KeystoneEndpoint> {
  return dependantReconciler<KeystoneEndpoint, KeystoneEndpointPassStatus, KeystoneEndpointPass>(
    {
      kind: KeystoneKinds.KeystoneEndpoint,
      finalizer: KeystoneFinalizers.KeystoneEndpoint,
      conditions: [
        unknownCondition(ConditionType.KeystoneServiceReady, Reason.Init, ''),
        unknownCondition(
          T.KeystoneServiceOSEndpointsReady,
          Reason.Init,
          M.KeystoneServiceOSEndpointsReadyInit,
        ),
      ],
      initialStatus: (cr, previous) => ({
        ...previous,
        endpointIDs: { ...previous?.endpointIDs },
        endpoints: [...(previous?.endpoints ?? [])],
        observedGeneration: cr.metadata.generation ?? 0,
      }),
      registered: (status) => Object.keys(status.endpointIDs).length > 0,
      register: [
        reports(ConditionType.KeystoneServiceReady, waitForKeystoneService),
        reports(T.KeystoneServiceOSEndpointsReady, holdParents),
        reports(T.KeystoneServiceOSEndpointsReady, registerEndpoints),
      ],
      unregister: [unregisterEndpoints],
      releaseParents,
    },
    pool,
    resyncMs,
  );
}
