import { ConditionType } from '@stackops/lib-common/conditions';

/**
 * The conditions a PlacementAPI carries, re-initialised (Unknown/Init) at the start of every
 * reconcile, as upstream's `initStatus`. TLSInputReady is left out: TLS is not implemented.
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
] as const;
