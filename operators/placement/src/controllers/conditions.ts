import { ConditionType } from '@stackops/lib-common/conditions';
import { wantsPodDisruptionBudget } from '@stackops/lib-common/openstack';
import type { PlacementAPI } from '../api/kinds.js';

/**
 * The conditions a PlacementAPI carries, re-initialised (Unknown/Init) at the start of every
 * reconcile, as upstream's `initStatus` (its 13, then MariaDBAccountReady, which upstream sets
 * later in the pass): with Ready, the 15 conditions upstream's PlacementAPI reports.
 */
export const placementConditionTypes = [
  ConditionType.DBReady,
  ConditionType.DBSyncReady,
  ConditionType.CreateServiceReady,
  ConditionType.InputReady,
  ConditionType.ServiceConfigReady,
  ConditionType.DeploymentReady,
  ConditionType.KeystoneServiceReady,
  ConditionType.KeystoneEndpointReady,
  ConditionType.NetworkAttachmentsReady,
  ConditionType.ServiceAccountReady,
  ConditionType.RoleReady,
  ConditionType.RoleBindingReady,
  ConditionType.TLSInputReady,
  ConditionType.MariaDBAccountReady,
] as const;

/**
 * The conditions of one PlacementAPI: the above, TopologyReady when it names a Topology (as
 * upstream), and PDBReady (stackops) when it has more than one replica.
 */
export const placementConditions = (cr: PlacementAPI): readonly string[] => [
  ...placementConditionTypes,
  ...(cr.spec.topologyRef?.name ? [ConditionType.TopologyReady] : []),
  ...(wantsPodDisruptionBudget(cr.spec.replicas) ? [ConditionType.PDBReady] : []),
];
