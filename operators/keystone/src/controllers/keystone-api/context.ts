import type { Pass } from '@stackops/lib-common/pipeline';
import type { KeystoneAPI, KeystoneAPIStatus } from '../../api/keystone-api.js';
import type { KeystoneDefaults } from '../../config/defaults.js';
import type { ResolvedSpec } from '../../config/spec.js';

/** The status a KeystoneAPI pass builds (its maps always present). */
export type KeystoneApiStatus = KeystoneAPIStatus & {
  hash: Record<string, string>;
  apiEndpoints: Record<string, string>;
  networkAttachments: Record<string, string[]>;
};

/** What every step of a KeystoneAPI reconcile sees and fills in, besides lib-common's pass. */
export interface KeystoneApiPass extends Pass<KeystoneAPI, KeystoneApiStatus> {
  spec: ResolvedSpec;
  defaults: KeystoneDefaults;
  /** Name → hash of every input the pods depend on (upstream `configMapVars`). */
  inputs: Record<string, string>;
  /** Passwords read from the input Secret (never logged). */
  passwords?: { admin: string; database: string; root: string };
  /** Where the database account's password lives (`spec.secret`'s key, or the generated `<account>-db-secret`). */
  databaseAccount?: { secret: string; key: string };
  /** Set in mariadb-operator mode: the MariaDBAccount's user; TLS support of the database. */
  databaseConnection?: { user: string; tlsSupport: boolean };
  memcachedServers?: string;
  /** From infra-operator's Memcached CR: TLS, and the per-pod servers with the `inet:`/`inet6:` prefix. */
  memcached?: { tls: boolean; serversWithInet: string };
  podAnnotations?: Record<string, string>;
  /** The federatedRealmConfig file names (sorted), mounted one by one into the API pods. */
  federationFilenames?: string[];
  /** The combined input hash, once computed: the pods' CONFIG_HASH. */
  configHash?: string;
}

/** How long to wait before looking again at something that is not there yet and has no watch. */
export const RECHECK_AFTER_MS = 10_000;
