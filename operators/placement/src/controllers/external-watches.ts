import { ExternalKinds } from '@stackops/lib-common/external';
import type { ControllerBuilder, SourceOptions } from '@stackops/lib-common/runtime';
import type { PlacementAPI } from '../api/kinds.js';

/** Their CRDs belong to mariadb-operator and infra-operator: watched once (and while) they are installed. */
const OTHER_OPERATOR: SourceOptions = { optional: true };

/**
 * The CRs of other operators a PlacementAPI creates (MariaDBDatabase, MariaDBAccount) or names
 * (Galera, Topology): a change, their status included, wakes it at once, as upstream's watches
 * do, instead of at the next recheck. Without their CRD nothing is watched.
 */
export function watchOtherOperatorsCrs(
  builder: ControllerBuilder<PlacementAPI>,
): ControllerBuilder<PlacementAPI> {
  return builder
    .owns(ExternalKinds.MariaDBDatabase, OTHER_OPERATOR)
    .owns(ExternalKinds.MariaDBAccount, OTHER_OPERATOR)
    .referencedBy(ExternalKinds.Galera, (cr) => [cr.spec.databaseInstance], OTHER_OPERATOR)
    .referencedBy(ExternalKinds.Topology, (cr) => [cr.spec.topologyRef?.name], OTHER_OPERATOR);
}
