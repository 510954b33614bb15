import { type KindRef, Kinds } from '@stackops/lib-common/client';
import { ownsPipelineKinds, specOrMetadataChanged } from '@stackops/lib-common/pipeline';
import type { Manager } from '@stackops/lib-common/runtime';
import { KeystoneKinds } from '../../api/group.js';
import type { KeystoneAPI } from '../../api/keystone-api.js';
import type { KeystoneDefaults } from '../../config/defaults.js';
import { watchOtherOperatorsCrs } from './external-watches.js';
import { keystoneApiReconciler } from './keystone-api-reconciler.js';
import { tlsSecretNames } from './steps/check-tls-input.js';

/** What a KeystoneAPI creates and therefore watches as their controller owner. */
export const KEYSTONE_API_OWNED_KINDS: readonly KindRef[] = [
  Kinds.Secret,
  Kinds.ConfigMap,
  Kinds.Service,
  Kinds.Job,
  Kinds.CronJob,
  Kinds.Deployment,
  Kinds.PodDisruptionBudget,
  Kinds.ServiceAccount,
  Kinds.Role,
  Kinds.RoleBinding,
];

/** The label every Secret a KeystoneAPI creates carries (`keystoneGroupLabels`). */
const OWN_SECRETS_SELECTOR = 'keystone.openstack.org/uid';

/** The Secrets a KeystoneAPI's spec names, watched by name. */
const keystoneApiSecretNames = (cr: KeystoneAPI): (string | undefined)[] => [
  cr.spec.secret,
  ...tlsSecretNames(cr.spec.tls),
  cr.spec.httpdCustomization?.customConfigSecret,
  cr.spec.federatedRealmConfig,
];

/**
 * Registers the KeystoneAPI controller: it owns what it creates, and is woken by its input Secret
 * and by the database and memcached Services it points at.
 */
// Reconciles wait on the API server, not the CPU: 200 KeystoneAPIs drained 2 at a time took minutes
// with the process at 2 % CPU (tools/bench). A key is still never reconciled twice at once.
export function registerKeystoneApiController(
  manager: Manager,
  defaults: KeystoneDefaults,
  concurrency = 16,
) {
  let builder = manager.controller<KeystoneAPI>({
    for: KeystoneKinds.KeystoneAPI,
    name: 'keystoneapi',
    concurrency,
  });
  // A pass's own status write does not wake the key again (the pipeline writes status at the end
  // of a pass; nothing waits for that write to come back).
  builder = builder.forPredicates(specOrMetadataChanged);
  // Of Secrets, only its own (they all carry keystoneGroupLabels) are cached; those a spec names
  // are watched one by one, by name.
  builder = ownsPipelineKinds(builder, KEYSTONE_API_OWNED_KINDS, OWN_SECRETS_SELECTOR);
  builder = watchOtherOperatorsCrs(builder);
  return builder
    .referencedBy(Kinds.Secret, keystoneApiSecretNames, { byName: true })
    .referencedBy(Kinds.Service, (cr) => [cr.spec.databaseInstance ?? 'openstack', cr.spec.memcachedInstance])
    .reconcile(keystoneApiReconciler(defaults));
}
