import { pipeline } from '@stackops/lib-common/pipeline';
import type { Reconciler } from '@stackops/lib-common/runtime';
import { KeystoneFinalizers } from '../../api/finalizers.js';
import { KeystoneKinds } from '../../api/group.js';
import type { KeystoneAPI } from '../../api/keystone-api.js';
import type { KeystoneDefaults } from '../../config/defaults.js';
import { resolveSpec } from '../../config/spec.js';
import { initialConditionTypes } from './conditions.js';
import type { KeystoneApiPass, KeystoneApiStatus } from './context.js';
import { bootstrapStep } from './steps/bootstrap.js';
import { cloudConfigStep } from './steps/cloud-config.js';
import { cronJobStep } from './steps/cronjob.js';
import { databaseStep } from './steps/database.js';
import { dbSyncStep } from './steps/db-sync.js';
import { dependantsReleasedStep } from './steps/dependants-released.js';
import { deploymentStep } from './steps/deployment.js';
import { externalEndpointsStep } from './steps/external-endpoints.js';
import { fernetKeysStep } from './steps/fernet-keys.js';
import { inputHashStep } from './steps/input-hash.js';
import { inputSecretStep } from './steps/input-secret.js';
import { memcachedStep } from './steps/memcached.js';
import { networkAttachmentsStep } from './steps/network-attachments.js';
import { rbacStep } from './steps/rbac.js';
import { serviceConfigStep } from './steps/service-config.js';
import { servicesStep } from './steps/services.js';

/**
 * Upstream's order: input, database, memcached, config, keys, the input hash, networks, RBAC,
 * db_sync, Services, bootstrap (needs the Service URLs), the API Deployment, the trust-flush
 * CronJob, and clients' cloud config. Each step either goes on or ends the pass.
 */
const KEYSTONE_API_STEPS = [
  inputSecretStep,
  databaseStep,
  memcachedStep,
  serviceConfigStep,
  fernetKeysStep,
  inputHashStep,
  networkAttachmentsStep,
  rbacStep,
  dbSyncStep,
  servicesStep,
  bootstrapStep,
  deploymentStep,
  cronJobStep,
  cloudConfigStep,
];

/** External mode: Keystone runs elsewhere; only its endpoints and the clients' config are published. */
const EXTERNAL_KEYSTONE_API_STEPS = [inputSecretStep, externalEndpointsStep, cloudConfigStep];

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
    finalizer: { name: KeystoneFinalizers.KeystoneAPI, cleanup: [dependantsReleasedStep] },
    ...(opts.now ? { now: opts.now } : {}),
  });
}
