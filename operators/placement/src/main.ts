#!/usr/bin/env node
import { MARIADB_IMAGE_ENV } from '@stackops/lib-common/database';
import { runOperator } from '@stackops/lib-common/runtime';
import { PLACEMENT_API_IMAGE_ENV } from './api/constants.js';
import { defaultsFromEnv } from './config/defaults.js';
import { registerPlacementApiController } from './controllers/placement-api-controller.js';

await runOperator({
  name: 'placement-operator',
  summary: `Runs the OpenStack Placement API for each PlacementAPI (placement.openstack.org/v1beta1) and
registers it in keystone through keystone-operator's KeystoneService and KeystoneEndpoint.`,
  epilog: `Environment:
  ${PLACEMENT_API_IMAGE_ENV}  image for PlacementAPIs without containerImage
  ${MARIADB_IMAGE_ENV}        image with a MariaDB client, for the db-create Job
`,
  register: (manager, { env }) => {
    registerPlacementApiController(manager, defaultsFromEnv(env));
  },
});
