import type { Manager } from '@stackops/lib-common/runtime';
import { API_VERSION } from '../api/group.js';
import type { KeystoneAPI } from '../api/keystone-api.js';
import { registerKeystoneEndpointController } from '../controllers/keystone-endpoint/keystone-endpoint-controller.js';
import { registerKeystoneServiceController } from '../controllers/keystone-service/keystone-service-controller.js';
import { IdentityClientPool } from '../identity/client-pool.js';
import type { KeystoneServer } from './keystone-server.js';

/**
 * For other packages' integration tests only (never imported at run time): registers the
 * KeystoneService and KeystoneEndpoint controllers on a test Manager, so a consumer's
 * KeystoneService/KeystoneEndpoint really get registered in a Keystone from `startKeystoneServer()`.
 */
export function registerKeystoneRegistrationControllers(manager: Manager): void {
  const pool = new IdentityClientPool();
  registerKeystoneServiceController(manager, { pool });
  registerKeystoneEndpointController(manager, { pool });
}

/**
 * A KeystoneAPI in external mode whose endpoints are a test Keystone (its admin password must be
 * under `AdminPassword` of `secret`). With external mode the KeystoneAPI controller only publishes
 * the endpoints; without that controller, set its status (apiEndpoints, Ready) yourself.
 */
export function externalKeystoneAPI(
  namespace: string,
  server: Pick<KeystoneServer, 'url'>,
  secret = 'osp-secret',
  name = 'keystone',
): KeystoneAPI {
  return {
    apiVersion: API_VERSION,
    kind: 'KeystoneAPI',
    metadata: { name, namespace },
    spec: {
      secret,
      externalKeystoneAPI: true,
      override: { service: { internal: { endpointURL: server.url }, public: { endpointURL: server.url } } },
    },
  } as KeystoneAPI;
}
