export {
  fernetKeysFromSecretData,
  newFernetKey,
  readKeyRepository,
  writeKeyRepository,
} from './fernet-repository.js';
export { externalKeystoneAPI, registerKeystoneRegistrationControllers } from './keystone-registration.js';
export { type KeystoneServer, type KeystoneServerOptions, startKeystoneServer } from './keystone-server.js';
export { ensureKeystoneVenv, type KeystoneVenv, keystoneVenvDir } from './keystone-venv.js';
export { memcachedService } from './memcached-service.js';
export { pinnedKeystoneVersion } from './support-files.js';
