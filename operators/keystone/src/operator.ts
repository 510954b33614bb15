import { MARIADB_IMAGE_ENV } from '@stackops/lib-common/database';
import {
  type OperatorMainOptions,
  startDefaultingWebhook,
  webhookOptionsFromEnv,
} from '@stackops/lib-common/runtime';
import { buildCrd } from '@stackops/lib-common/schema';
import { keystoneCrds } from './api/crds.js';
import { KEYSTONE_API_IMAGE_ENV } from './api/keystone-api.js';
import { defaultsFromEnv, KEYSTONE_AUTH_URL_OVERRIDE_ENV } from './config/defaults.js';
import { RESYNC_PERIOD_ENV } from './controllers/dependants/resync.js';
import { registerKeystoneControllers } from './controllers/register.js';
import { defaultKeystoneApi, KEYSTONE_API_WEBHOOK_PATH } from './webhook.js';

/** What the keystone operator is and registers: its `main` and the combined process (`@stackops/operators`) run it. */
export const keystoneOperator: OperatorMainOptions = {
  name: 'keystone-operator',
  summary: `Runs OpenStack Keystone for each KeystoneAPI (keystone.openstack.org/v1beta1) and registers the
services and endpoints of KeystoneService and KeystoneEndpoint objects in it, and the application
credentials of KeystoneApplicationCredential objects.`,
  epilog: `Environment:
  ${KEYSTONE_API_IMAGE_ENV}  image for KeystoneAPIs without containerImage
  ${MARIADB_IMAGE_ENV}        image with a MariaDB client, for the db-create Job
  ${KEYSTONE_AUTH_URL_OVERRIDE_ENV}  Keystone URL the operator itself calls, instead of the
                              KeystoneAPI's internal endpoint; for running it outside the cluster
  ${RESYNC_PERIOD_ENV}      how often KeystoneService/KeystoneEndpoint re-check Keystone
                              for drift (Go duration, default 5m)
  WEBHOOK_BIND_ADDRESS        serve the KeystoneAPI defaulting webhook (HTTPS) there, e.g. :9443
  WEBHOOK_CERT_DIR            its tls.crt and tls.key (default: self-signed)
`,
  register: async (manager, { env, logger }) => {
    const defaults = defaultsFromEnv(env);
    // upstream's defaulting webhook (containerImage, canonical quantities), when the chart enables it
    await startDefaultingWebhook({
      ...webhookOptionsFromEnv(env),
      defaulters: { [KEYSTONE_API_WEBHOOK_PATH]: defaultKeystoneApi(defaults) },
      logger,
    });
    // openstack-operator re-applies its own KeystoneAPI schema on its upgrades: tell it on the CRs.
    manager.watchOwnCrds(() => keystoneCrds.map(buildCrd), 'keystone-operator');
    registerKeystoneControllers(manager, defaults);
  },
};
