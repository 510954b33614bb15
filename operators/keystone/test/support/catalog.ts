import { afterAll, beforeAll } from 'vitest';
import { KeystoneKinds } from '../../src/api/group.js';
import type { KeystoneAPI } from '../../src/api/keystone-api.js';
import type { KeystoneService } from '../../src/api/keystone-service.js';
import {
  createExternalKeystoneAPI,
  createOspSecret,
  type KeystoneSuite,
  placementService,
  useKeystoneSuite,
} from './keystone-server/operator.js';

/**
 * The opening the service-catalog tests share (KeystoneService and KeystoneEndpoint registering
 * services, their users and endpoints in Keystone): the two kinds, the suite (a real Keystone and
 * the operator's controllers) whose namespaces each hold osp-secret and a KeystoneAPI in external
 * mode pointing at that Keystone, and the checks on objects the tests use.
 */

export { conditionOf, isReadyObject } from './keystone-server/operator.js';

export const KS = KeystoneKinds.KeystoneService;
export const KE = KeystoneKinds.KeystoneEndpoint;

export interface RegistrationSuite extends KeystoneSuite {
  /** A fresh namespace with osp-secret and a KeystoneAPI (`api` merged into its spec) at the real Keystone. */
  keystoneNamespace(api?: Partial<KeystoneAPI['spec']>): Promise<string>;
  /** KeystoneService `name` of `ns` (`placementService` with `spec`) created, once Ready, and its service's Keystone id. */
  readyService(
    ns: string,
    name: string,
    spec?: Partial<KeystoneService['spec']>,
  ): Promise<{ cr: KeystoneService; serviceID: string }>;
}

/**
 * useKeystoneSuite's beforeAll/afterAll, registered where it is called (inside the file's
 * describe); the namespaces it makes are named `<prefix>-<random>`.
 */
export function registrationSuite(prefix: string): RegistrationSuite {
  const suite = useKeystoneSuite({ beforeAll, afterAll }) as RegistrationSuite;
  suite.keystoneNamespace = async (api = {}) => {
    const ns = await suite.namespace(prefix);
    await createOspSecret(suite.client, ns, suite.keystone);
    await createExternalKeystoneAPI(suite.client, ns, suite.keystone, api);
    return ns;
  };
  suite.readyService = async (ns, name, spec = {}) => {
    await suite.client.create(KS, placementService(ns, name, spec));
    const cr = await suite.ready<KeystoneService>(KS, ns, name);
    return { cr, serviceID: cr.status?.serviceID ?? '' };
  };
  // 90 s a wait unless told: these tests wait on objects that depend on others.
  const ready = suite.ready;
  suite.ready = (kind, ns, name, timeoutMs = 90_000) => ready(kind, ns, name, timeoutMs);
  return suite;
}
