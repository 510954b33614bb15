import { MARIADB_IMAGE_ENV } from '@stackops/lib-common/database';
import {
  type OperatorMainOptions,
  startDefaultingWebhook,
  webhookOptionsFromEnv,
} from '@stackops/lib-common/runtime';
import { buildCrd } from '@stackops/lib-common/schema';
import { PLACEMENT_API_IMAGE_ENV } from './api/constants.js';
import { crdDefinitions } from './api/crds.js';
import { defaultsFromEnv } from './config/defaults.js';
import { registerPlacementApiController } from './controllers/placement-api-controller.js';
import { defaultPlacementApi, PLACEMENT_API_WEBHOOK_PATH } from './webhook.js';

/** What the placement operator is and registers: its `main` and the combined process (`@stackops/operators`) run it. */
export const placementOperator: OperatorMainOptions = {
  name: 'placement-operator',
  summary: `Runs the OpenStack Placement API for each PlacementAPI (placement.openstack.org/v1beta1) and
registers it in keystone through keystone-operator's KeystoneService and KeystoneEndpoint.`,
  epilog: `Environment:
  ${PLACEMENT_API_IMAGE_ENV}  image for PlacementAPIs without containerImage
  ${MARIADB_IMAGE_ENV}        image with a MariaDB client, for the db-create Job
  WEBHOOK_BIND_ADDRESS        serve the PlacementAPI defaulting webhook (HTTPS) there, e.g. :9443
  WEBHOOK_CERT_DIR            its tls.crt and tls.key (default: self-signed)
`,
  register: async (manager, { env, logger }) => {
    const defaults = defaultsFromEnv(env);
    // openstack-operator re-applies its own PlacementAPI schema on its upgrades: tell it on the CRs.
    manager.watchOwnCrds(() => crdDefinitions.map(buildCrd), 'placement-operator');
    registerPlacementApiController(manager, defaults);
    // upstream's defaulting webhook (containerImage, apiTimeout, canonical quantities), when the chart enables it
    await startDefaultingWebhook({
      ...webhookOptionsFromEnv(env),
      defaulters: { [PLACEMENT_API_WEBHOOK_PATH]: defaultPlacementApi(defaults) },
      logger,
    });
  },
};
