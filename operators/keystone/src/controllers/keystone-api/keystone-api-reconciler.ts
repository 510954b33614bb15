import { ConditionType } from '@stackops/lib-common/conditions';
import { checkSpecFirst, pipeline, reports } from '@stackops/lib-common/pipeline';
import type { Reconciler } from '@stackops/lib-common/runtime';
import { KeystoneFinalizers } from '../../api/finalizers.js';
import { KeystoneKinds } from '../../api/group.js';
import type { KeystoneAPI } from '../../api/keystone-api.js';
import type { KeystoneDefaults } from '../../config/defaults.js';
import { resolveSpec } from '../../config/spec.js';
import { keystoneSpecProblems } from '../../config/validate.js';
import { initialConditionTypes } from './conditions.js';
import type { KeystoneApiPass, KeystoneApiStatus } from './context.js';
import { markAdoptableRuns } from './run-job.js';
import { checkInputSecret } from './steps/check-input-secret.js';
import { checkMemcached, releaseMemcached } from './steps/check-memcached.js';
import { checkTlsInput } from './steps/check-tls-input.js';
import { ensureCloudConfig } from './steps/ensure-cloud-config.js';
import { ensureConfigSecret } from './steps/ensure-config-secret.js';
import { ensureCronJob } from './steps/ensure-cron-job.js';
import { ensureDatabase, releaseDatabase } from './steps/ensure-database.js';
import { ensureDatabaseAccount } from './steps/ensure-database-account.js';
import { ensureDeployment } from './steps/ensure-deployment.js';
import { ensureFederation } from './steps/ensure-federation.js';
import { ensureFernetKeys } from './steps/ensure-fernet-keys.js';
import { ensurePdb } from './steps/ensure-pdb.js';
import { ensureRbac } from './steps/ensure-rbac.js';
import { ensureServices } from './steps/ensure-services.js';
import { ensureTopology, releaseTopology } from './steps/ensure-topology.js';
import { ensureTransportUrl } from './steps/ensure-transport-url.js';
import { publishExternalEndpoints } from './steps/publish-external-endpoints.js';
import { recordInputHash } from './steps/record-input-hash.js';
import { resolveNetworks } from './steps/resolve-networks.js';
import { runBootstrap } from './steps/run-bootstrap.js';
import { runDbSync } from './steps/run-db-sync.js';
import { waitForDependants } from './steps/wait-for-dependants.js';

/**
 * The spec's own errors first, all at once, with what the input Secret and the cache instance lack
 * beside them (InputReady, MemcachedReady): a user fixes everything in one go.
 */
const checkSpec = checkSpecFirst<KeystoneAPI, KeystoneApiPass>({
  problems: (ctx) => keystoneSpecProblems(ctx.spec),
  condition: ConditionType.InputReady,
  dependencies: [checkInputSecret, checkMemcached],
});

/** External mode has no cache of its own: only the input Secret beside the spec's errors. */
const checkExternalSpec = checkSpecFirst<KeystoneAPI, KeystoneApiPass>({
  problems: (ctx) => keystoneSpecProblems(ctx.spec),
  condition: ConditionType.InputReady,
  dependencies: [checkInputSecret],
});

/**
 * Upstream's order (after the spec check): input, database, the notifications TransportURL, memcached, config, keys, federation, TLS inputs, the input hash, networks,
 * the Topology (before the Jobs, which it places too), RBAC,
 * db_sync, Services, bootstrap (needs the Service URLs), the API Deployment and its disruption budget, the trust-flush
 * CronJob, and clients' cloud config. Each step either goes on or ends the pass, and names the
 * condition a failure it did not report itself lands on (the conditions are listed in upstream's
 * order, which is not this one).
 */
const KEYSTONE_API_STEPS = [
  // Before anything can end the pass (its status write replaces the previous operator's evidence).
  markAdoptableRuns,
  checkSpec,
  reports(ConditionType.InputReady, checkInputSecret),
  reports(ConditionType.MariaDBAccountReady, ensureDatabaseAccount),
  reports(ConditionType.DBReady, ensureDatabase),
  reports(ConditionType.RabbitMqTransportURLReady, ensureTransportUrl),
  reports(ConditionType.MemcachedReady, checkMemcached),
  reports(ConditionType.ServiceConfigReady, ensureConfigSecret),
  reports(ConditionType.ServiceConfigReady, ensureFernetKeys),
  reports(ConditionType.ServiceConfigReady, ensureFederation),
  reports(ConditionType.TLSInputReady, checkTlsInput),
  reports(ConditionType.ServiceConfigReady, recordInputHash),
  reports(ConditionType.NetworkAttachmentsReady, resolveNetworks),
  reports(ConditionType.TopologyReady, ensureTopology),
  reports(ConditionType.ServiceAccountReady, ensureRbac),
  reports(ConditionType.DBSyncReady, runDbSync),
  reports(ConditionType.CreateServiceReady, ensureServices),
  reports(ConditionType.BootstrapReady, runBootstrap),
  reports(ConditionType.DeploymentReady, ensureDeployment),
  reports(ConditionType.PDBReady, ensurePdb),
  reports(ConditionType.CronJobReady, ensureCronJob),
  // The clients' cloud config has no condition of its own (as upstream): its failure is Ready's.
  ensureCloudConfig,
];

/** External mode: Keystone runs elsewhere; only its endpoints and the clients' config are published. */
const EXTERNAL_KEYSTONE_API_STEPS = [
  checkExternalSpec,
  reports(ConditionType.InputReady, checkInputSecret),
  publishExternalEndpoints,
  reports(ConditionType.TLSInputReady, checkTlsInput),
  ensureCloudConfig,
];

/**
 * The KeystoneAPI reconciler: lib-common's pipeline (conditions initialised every pass, the
 * finalizer, the steps, Ready, the status written only if it changed) over the steps above. On
 * deletion it waits until no KeystoneService/KeystoneEndpoint holds the KeystoneAPI; owned objects
 * then go with it through garbage collection (the database itself is kept, ADR 0005).
 */
export function keystoneApiReconciler(
  defaults: KeystoneDefaults,
  opts: { now?: () => Date } = {},
): Reconciler<KeystoneAPI> {
  return pipeline<KeystoneAPI, KeystoneApiStatus, KeystoneApiPass>({
    kind: KeystoneKinds.KeystoneAPI,
    onePerNamespace: true,
    // Events for the workloads a user follows (and Ready flips, failures); the dozen Secrets,
    // RBAC objects and Services a first apply creates are logged only.
    eventKinds: ['Job', 'Deployment'],
    conditions: (cr) => initialConditionTypes(resolveSpec(cr, defaults)),
    initialStatus: (cr, previous) => {
      const { conditions: _c, ...rest } = previous ?? {};
      return {
        ...rest,
        hash: { ...previous?.hash },
        apiEndpoints: { ...previous?.apiEndpoints },
        networkAttachments: { ...previous?.networkAttachments },
        observedGeneration: cr.metadata.generation ?? 0,
      };
    },
    context: (pass) => Object.assign(pass, { spec: resolveSpec(pass.cr, defaults), defaults, inputs: {} }),
    steps: (ctx) => (ctx.spec.externalKeystoneAPI ? EXTERNAL_KEYSTONE_API_STEPS : KEYSTONE_API_STEPS),
    finalizer: {
      name: KeystoneFinalizers.KeystoneAPI,
      cleanup: [waitForDependants, releaseTopology, releaseMemcached, releaseDatabase],
    },
    ...(opts.now ? { now: opts.now } : {}),
  });
}
