import { pipeline } from '@stackops/lib-common/pipeline';
import type { Reconciler } from '@stackops/lib-common/runtime';
import { PLACEMENT_API_FINALIZER } from '../../api/constants.js';
import { type PlacementAPI, PlacementAPIKind } from '../../api/kinds.js';
import type { PlacementDefaults } from '../../config/defaults.js';
import { placementConditionTypes } from './conditions.js';
import type { PlacementApiPass, PlacementApiStatus } from './context.js';
import { databaseStep } from './steps/database.js';
import { dbSyncStep } from './steps/db-sync.js';
import { deploymentStep } from './steps/deployment.js';
import { inputHashStep } from './steps/input-hash.js';
import { inputSecretStep } from './steps/input-secret.js';
import { keystoneRegistrationStep } from './steps/keystone-registration.js';
import { networkAttachmentsStep } from './steps/network-attachments.js';
import { rbacStep } from './steps/rbac.js';
import { releaseKeystoneChildrenStep } from './steps/release-keystone-children.js';
import { serviceConfigStep } from './steps/service-config.js';
import { servicesStep } from './steps/services.js';

/** The reconcile of a PlacementAPI, in upstream's order; each step may end it. */
export const PLACEMENT_API_STEPS = [
  rbacStep,
  inputSecretStep,
  databaseStep,
  serviceConfigStep,
  inputHashStep,
  networkAttachmentsStep,
  servicesStep,
  dbSyncStep,
  deploymentStep,
  keystoneRegistrationStep,
];

/**
 * The PlacementAPI reconciler: lib-common's pipeline (conditions initialised every pass, the
 * finalizer, the steps, Ready, the status written only if it changed, an Event when Ready flips)
 * over the steps above. On deletion it releases the KeystoneService and KeystoneEndpoint; everything
 * else it created goes with it through garbage collection.
 */
export function placementApiReconciler(defaults: PlacementDefaults): Reconciler<PlacementAPI> {
  return pipeline<PlacementAPI, PlacementApiStatus, PlacementApiPass>({
    kind: PlacementAPIKind,
    conditions: placementConditionTypes,
    initialStatus: (cr, previous) => {
      // What is known stays (so an early stop does not wipe it).
      const { conditions: _c, ...rest } = previous ?? {};
      return { ...rest, hash: { ...previous?.hash }, observedGeneration: cr.metadata.generation };
    },
    context: (pass) =>
      Object.assign(pass, { defaults, inputs: {}, podAnnotations: {}, networkAttachments: [] as string[] }),
    steps: PLACEMENT_API_STEPS,
    finalizer: { name: PLACEMENT_API_FINALIZER, cleanup: [releaseKeystoneChildrenStep] },
  });
}
