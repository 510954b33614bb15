import type { KubeObject } from '@stackops/lib-common/client';
import type { Pass } from '@stackops/lib-common/pipeline';
import type { KeystoneAPI } from '../../api/keystone-api.js';
import type { IdentityClient } from '../../identity/client.js';
import type { IdentityClientPool } from '../../identity/client-pool.js';
import type { Changes } from '../../registration/service.js';

/**
 * A pass of a KeystoneService or KeystoneEndpoint reconcile: lib-common's pass plus what the two
 * share. Both are "dependants" of the namespace's KeystoneAPI: they register something in the
 * Keystone it runs, as its admin.
 */
export interface DependantPass<T extends KubeObject, S extends object> extends Pass<T, S> {
  /** Admin clients shared by both controllers (one token per admin, reused across passes). */
  pool: IdentityClientPool;
  /** What changed in Keystone, in words: each entry is a Normal `KeystoneUpdated` Event (never a password). */
  changes: Changes;
  /** The namespace's KeystoneAPI, once it is Ready (set by `checkKeystoneAPI`). */
  api?: KeystoneAPI;
  /** Keystone as the KeystoneAPI's admin (system scope), and the region to register in (`connectAdminClient`). */
  identity?: IdentityClient;
  region?: string;
}
