import { apiEndpointsChanged, type KeystoneAPI, KeystoneKinds } from '@stackops/keystone-operator';
import { type KindRef, Kinds, type ObjectRef } from '@stackops/lib-common/client';
import { ownsPipelineKinds, specOrMetadataChanged } from '@stackops/lib-common/pipeline';
import type { Manager, Predicate } from '@stackops/lib-common/runtime';
import { type PlacementAPI, PlacementAPIKind } from '../api/kinds.js';
import type { PlacementDefaults } from '../config/defaults.js';
import { watchOtherOperatorsCrs } from './external-watches.js';
import { placementApiReconciler } from './placement-api-reconciler.js';
import { tlsSecretNames } from './steps/check-tls-input.js';

/** What a PlacementAPI creates, and therefore watches as their controller owner. */
export const PLACEMENT_API_OWNED_KINDS: readonly KindRef[] = [
  Kinds.Secret,
  Kinds.Service,
  Kinds.Job,
  Kinds.Deployment,
  Kinds.PodDisruptionBudget,
  Kinds.ServiceAccount,
  Kinds.Role,
  Kinds.RoleBinding,
  KeystoneKinds.KeystoneService,
  KeystoneKinds.KeystoneEndpoint,
];

/** The label every Secret a PlacementAPI creates carries (`ownerLabels`). */
const OWNED_SECRETS = 'placement.openstack.org/uid';

const refOf = (cr: PlacementAPI): ObjectRef => ({
  namespace: cr.metadata.namespace ?? '',
  name: cr.metadata.name ?? '',
});

/** KeystoneAPI updates matter only when what placement.conf uses changed: endpoints or region. */
const keystoneEndpointsOrRegionChanged: Predicate = (e) => {
  if (e.type !== 'update') return true;
  const [before, after] = [e.old as KeystoneAPI, e.obj as KeystoneAPI];
  return apiEndpointsChanged(before, after) || before.status?.region !== after.status?.region;
};

/**
 * Registers the PlacementAPI controller: it owns what it creates and is woken by its input, TLS and
 * application credential Secrets,
 * by the database Service it points at, and by the namespace's KeystoneAPI publishing new
 * endpoints (every PlacementAPI of that namespace re-renders its config).
 */
export function registerPlacementApiController(
  manager: Manager,
  defaults: PlacementDefaults,
  concurrency = 2,
) {
  let builder = manager.controller<PlacementAPI>({
    for: PlacementAPIKind,
    name: 'placementapi',
    concurrency,
  });
  // A pass's own status write does not wake the key again (the pipeline writes status at the end
  // of a pass; nothing waits for that write to come back).
  builder = builder.forPredicates(specOrMetadataChanged);
  // Only its own Secrets (labelled with the owner) are cached; those a spec names are watched by name.
  builder = ownsPipelineKinds(builder, PLACEMENT_API_OWNED_KINDS, OWNED_SECRETS);
  builder = watchOtherOperatorsCrs(builder);
  return builder
    .referencedBy(
      Kinds.Secret,
      (cr) => [cr.spec.secret, ...tlsSecretNames(cr.spec.tls), cr.spec.auth?.applicationCredentialSecret],
      { byName: true },
    )
    .referencedBy(Kinds.Service, (cr) => [cr.spec.databaseInstance])
    .watches(
      KeystoneKinds.KeystoneAPI,
      (obj) =>
        manager.cache
          .list<PlacementAPI>(PlacementAPIKind, { namespace: obj.metadata.namespace ?? '' })
          .map(refOf),
      { predicates: [keystoneEndpointsOrRegionChanged] },
    )
    .reconcile(placementApiReconciler(defaults));
}
