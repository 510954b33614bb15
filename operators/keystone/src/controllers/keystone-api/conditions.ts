import { ConditionType } from '@stackops/lib-common/conditions';
import { wantsPodDisruptionBudget } from '@stackops/lib-common/openstack';
import { notificationsCluster, type ResolvedSpec } from '../../config/spec.js';

/**
 * The conditions a KeystoneAPI reports, initialised (Unknown) at the start of every reconcile so
 * types that no longer apply disappear. External mode only checks its input. Memcached is only
 * reported when a memcachedInstance is set, RabbitMqTransportURLReady when notifications go to a
 * RabbitMQ, TopologyReady when a topologyRef is, PDBReady with more than one replica.
 */
export function initialConditionTypes(spec: ResolvedSpec): string[] {
  if (spec.externalKeystoneAPI) return [ConditionType.InputReady, ConditionType.TLSInputReady];
  return [
    ConditionType.InputReady,
    ConditionType.TLSInputReady,
    ConditionType.MariaDBAccountReady,
    ConditionType.DBReady,
    ...(notificationsCluster(spec) ? [ConditionType.RabbitMqTransportURLReady] : []),
    ...(spec.memcachedInstance ? [ConditionType.MemcachedReady] : []),
    ConditionType.ServiceConfigReady,
    ConditionType.NetworkAttachmentsReady,
    ConditionType.ServiceAccountReady,
    ConditionType.RoleReady,
    ConditionType.RoleBindingReady,
    ConditionType.DBSyncReady,
    ConditionType.CreateServiceReady,
    ConditionType.BootstrapReady,
    ConditionType.DeploymentReady,
    ...(wantsPodDisruptionBudget(spec.replicas) ? [ConditionType.PDBReady] : []),
    ConditionType.CronJobReady,
    ...(spec.topologyRef?.name ? [ConditionType.TopologyReady] : []),
  ];
}
