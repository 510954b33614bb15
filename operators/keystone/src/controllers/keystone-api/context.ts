import type { PodPlacement } from '@stackops/lib-common/openstack';
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
  /**
   * From infra-operator's Memcached CR (`checkMemcached`): whether it serves TLS (keystone then uses
   * oslo_cache.memcache_pool), its per-pod servers with the `inet6:`/`inet:` prefix
   * (dogpile.cache.memcached's form; `memcachedServers` holds the plain list), and its mTLS client
   * certificate Secret when `spec.tls.mtls.sslVerifyMode` is Request or Require.
   */
  memcached?: { tls: boolean; serversWithInet: string; mtlsSecret?: string };
  /** From the TransportURL's Secret (`ensureTransportUrl`): where notifications go (never logged). */
  notifications?: { transportUrl: string; quorumQueues: boolean } | undefined;
  /** From the Topology `spec.topologyRef` names (`ensureTopology`): applied to the Deployment and the Jobs. */
  topology?: PodPlacement | undefined;
  podAnnotations?: Record<string, string>;
  /** The federatedRealmConfig file names (sorted), mounted one by one into the API pods. */
  federationFilenames?: string[];
  /** The combined input hash, once computed: the pods' CONFIG_HASH. */
  configHash?: string;
}

/**
 * The spec the pod and config builders take: the resolved spec (never rewritten during a pass) with
 * the Memcached's mTLS client Secret this pass found, which every pod mounts.
 */
export const specForPods = (ctx: KeystoneApiPass): ResolvedSpec =>
  ctx.memcached?.mtlsSecret ? { ...ctx.spec, memcachedMtlsSecret: ctx.memcached.mtlsSecret } : ctx.spec;

/** How long to wait before looking again at something that is not there yet and has no watch. */
export const RECHECK_AFTER_MS = 10_000;
