import type { ServiceEndpointType } from '@stackops/keystone-operator';
import { serviceLabels } from '@stackops/lib-common/openstack';
import { PLACEMENT_SERVICE_NAME } from '../api/constants.js';

/** Names of what a PlacementAPI creates (upstream's choices: some from the CR name, some constant). */
export const childNames = (crName: string) => ({
  deployment: crName,
  configSecret: `${crName}-config-data`,
  scriptsSecret: `${crName}-scripts`,
  dbSyncJob: `${crName}-db-sync`,
  serviceAccount: `placement-${crName}`,
  role: `placement-${crName}-role`,
  roleBinding: `placement-${crName}-rolebinding`,
  logContainer: `${crName}-log`,
  apiContainer: `${crName}-api`,
  dbSyncContainer: `${crName}-db-sync`,
});

/** Services are named after the service, not the CR: `placement-internal`, `placement-public`. */
export const serviceName = (endpoint: ServiceEndpointType): string => `${PLACEMENT_SERVICE_NAME}-${endpoint}`;

/**
 * `{service: placement, owner: <cr name>}`: the API pods' labels and selector, and the labels of the
 * Services and Jobs themselves. Job pods do not carry them (as upstream), so `-l service=placement`
 * finds only API pods.
 */
export const placementServiceLabels = (crName: string): Record<string, string> =>
  serviceLabels(PLACEMENT_SERVICE_NAME, crName);
