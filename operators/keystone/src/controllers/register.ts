import type { Manager } from '@stackops/lib-common/runtime';
import type { KeystoneDefaults } from '../config/defaults.js';
import { IdentityClientPool } from '../identity/client-pool.js';
import { registerKeystoneApiController } from './keystone-api/keystone-api-controller.js';
import { registerKeystoneApplicationCredentialController } from './keystone-application-credential/keystone-application-credential-controller.js';
import { registerKeystoneEndpointController } from './keystone-endpoint/keystone-endpoint-controller.js';
import { registerKeystoneServiceController } from './keystone-service/keystone-service-controller.js';

/** Every controller of the operator: what main.ts runs, and what the tests run as the whole operator. */
export function registerKeystoneControllers(manager: Manager, defaults: KeystoneDefaults): void {
  registerKeystoneApiController(manager, defaults);
  // One pool of admin clients (and tokens) for the controllers that call Keystone.
  const pool = new IdentityClientPool(undefined, defaults.authUrlOverride);
  registerKeystoneServiceController(manager, { pool });
  registerKeystoneEndpointController(manager, { pool });
  registerKeystoneApplicationCredentialController(manager, { pool });
}
