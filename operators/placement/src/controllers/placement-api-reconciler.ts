import { ConditionType } from '@stackops/lib-common/conditions';
import { pipeline, reports, whileWaiting } from '@stackops/lib-common/pipeline';
import type { Reconciler } from '@stackops/lib-common/runtime';
import { PLACEMENT_API_FINALIZER } from '../api/constants.js';
import { type PlacementAPI, PlacementAPIKind } from '../api/kinds.js';
import type { PlacementDefaults } from '../config/defaults.js';
import { placementConditions } from './conditions.js';
import type { PlacementApiPass, PlacementApiStatus } from './context.js';
import {
  handOverApplicationCredential,
  releaseApplicationCredential,
} from './steps/application-credential.js';
import { checkInputSecret } from './steps/check-input-secret.js';
import { checkSpec } from './steps/check-spec.js';
import { checkTlsInput } from './steps/check-tls-input.js';
import { ensureConfigSecret } from './steps/ensure-config-secret.js';
import { ensureDatabase, releaseDatabase } from './steps/ensure-database.js';
import { ensureDatabaseAccount } from './steps/ensure-database-account.js';
import { ensureDeployment } from './steps/ensure-deployment.js';
import { ensurePdb } from './steps/ensure-pdb.js';
import { ensureRbac } from './steps/ensure-rbac.js';
import { ensureServices } from './steps/ensure-services.js';
import { ensureTopology, releaseTopology } from './steps/ensure-topology.js';
import { recordInputHash } from './steps/record-input-hash.js';
import { registerInKeystone } from './steps/register-in-keystone.js';
import { releaseKeystoneChildren } from './steps/release-keystone-children.js';
import { resolveNetworks } from './steps/resolve-networks.js';
import { markAdoptableDbSync, runDbSync } from './steps/run-db-sync.js';

/**
 * The reconcile of a PlacementAPI, in upstream's order; each step may end it. Each names the
 * condition a failure it did not report itself lands on (the conditions are listed in upstream's
 * order, which is not this one).
 */
export const PLACEMENT_API_STEPS = [
  // Before anything can end the pass (its status write replaces the previous operator's evidence).
  markAdoptableDbSync,
  checkSpec,
  reports(ConditionType.ServiceAccountReady, ensureRbac),
  reports(ConditionType.InputReady, checkInputSecret),
  reports(ConditionType.MariaDBAccountReady, ensureDatabaseAccount),
  // While a Job runs, the Services and the PodDisruptionBudget (they need nothing it makes) are
  // written too, so the pass after it finds them up to date (ADR 0069).
  reports(ConditionType.DBReady, whileWaiting(ensureDatabase, ensureServices)),
  reports(ConditionType.ServiceConfigReady, ensureConfigSecret),
  reports(ConditionType.TLSInputReady, checkTlsInput),
  reports(ConditionType.ServiceConfigReady, recordInputHash),
  reports(ConditionType.NetworkAttachmentsReady, resolveNetworks),
  reports(ConditionType.CreateServiceReady, ensureServices),
  reports(ConditionType.TopologyReady, ensureTopology),
  reports(ConditionType.DBSyncReady, whileWaiting(runDbSync, ensurePdb)),
  // Before the Deployment step, which ends the pass until every replica is ready.
  reports(ConditionType.PDBReady, ensurePdb),
  reports(ConditionType.DeploymentReady, ensureDeployment),
  reports(ConditionType.ServiceConfigReady, handOverApplicationCredential),
  reports(ConditionType.KeystoneServiceReady, registerInKeystone),
];

/**
 * The PlacementAPI reconciler: lib-common's pipeline (conditions initialised every pass, the
 * finalizer, the steps, Ready, the status written only if it changed, an Event when Ready flips)
 * over the steps above. On deletion it releases the KeystoneService and KeystoneEndpoint (and, in
 * mariadb-operator mode, the MariaDB CRs); everything
 * else it created goes with it through garbage collection.
 */
export function placementApiReconciler(defaults: PlacementDefaults): Reconciler<PlacementAPI> {
  return pipeline<PlacementAPI, PlacementApiStatus, PlacementApiPass>({
    kind: PlacementAPIKind,
    // Services and keystone children are named `placement…` whatever the CR's name: one per namespace.
    onePerNamespace: true,
    // Events for the workloads a user follows (and Ready flips, failures); the Secrets, RBAC
    // objects, Services and keystone children a first apply creates are logged only.
    eventKinds: ['Job', 'Deployment'],
    conditions: placementConditions,
    initialStatus: (cr, previous) => {
      // What is known stays (so an early stop does not wipe it).
      const { conditions: _c, ...rest } = previous ?? {};
      return { ...rest, hash: { ...previous?.hash }, observedGeneration: cr.metadata.generation };
    },
    context: (pass) =>
      Object.assign(pass, { defaults, inputs: {}, podAnnotations: {}, networkAttachments: [] as string[] }),
    steps: PLACEMENT_API_STEPS,
    finalizer: {
      name: PLACEMENT_API_FINALIZER,
      cleanup: [releaseKeystoneChildren, releaseApplicationCredential, releaseTopology, releaseDatabase],
    },
  });
}
