import { databaseClientConfig, databaseConnectionUrl } from '@stackops/lib-common/database';
import {
  httpdSslConf,
  httpdVhostCertFiles,
  renderCustomData,
  renderString,
  tlsEnabled,
} from '@stackops/lib-common/openstack';
import type { KeystoneAPI } from '../api/keystone-api.js';
import { databaseUser, type ResolvedSpec } from '../config/spec.js';
import { KEYSTONE_DATABASE, KeystoneNames } from '../resources/names.js';
import { httpdConfTemplate } from './httpd-conf.js';
import { keystoneConfTemplate } from './keystone-conf.js';
import { keystoneApiKollaConfig } from './kolla-config.js';

/** Everything the config templates read (and `customServiceConfig` may use). */
export interface KeystoneConfigData {
  databaseConnection: string;
  /** my.cnf with TLS to the database (CA bundle mounted and the database supports it). */
  databaseTls: boolean;
  memcachedServers: string;
  memcachedServersWithInet: string;
  memcachedTls: boolean;
  /** The Memcached asks for client certificates (mTLS): keystone.conf names the mounted files. */
  memcachedMtls: boolean;
  /** The TransportURL's `transport_url` (empty: no notifications) and whether its cluster uses quorum queues. */
  transportUrl: string;
  quorumQueues: boolean;
  enableSecureRBAC: boolean;
  fernetMaxActiveKeys: number;
  processNumber: number;
  timeout: number;
  region: string;
  vhosts: {
    endpoint: 'internal' | 'public';
    serverName: string;
    /** TLS on this vhost: httpd reads the certificate and key kolla copied from the mounts. */
    tls: boolean;
    certificateFile: string;
    keyFile: string;
    /** `httpdCustomization.customConfigSecret` files (`httpd_custom_<endpoint>_*`) are included. */
    override: boolean;
  }[];
  /** The published URLs (empty on the first pass), for `{{ .KeystoneEndpointPublic }}` in custom text. */
  endpoints: { internal: string; public: string };
  /** The customConfigSecret's files (key → content). */
  httpdCustomFiles: Record<string, string>;
}

export interface KeystoneConfigInputs {
  databaseHostname: string;
  databasePassword: string;
  /** mariadb-operator mode: the account's user name (else `databaseAccount`). */
  databaseUser?: string;
  /** The database supports TLS and a CA bundle is mounted: my.cnf turns TLS on (upstream GetDatabaseClientConfig). */
  databaseTls?: boolean;
  /** `host:port` list of memcached servers, comma-joined; empty when caching is off. */
  memcachedServers: string;
  /** The same with dogpile's `inet:`/`inet6:` prefixes (default: `memcachedServers`). */
  memcachedServersWithInet?: string;
  /** The Memcached serves TLS (then oslo_cache.memcache_pool). */
  memcachedTls?: boolean;
  /** From the notifications TransportURL's Secret. */
  notifications?: { transportUrl: string; quorumQueues: boolean };
  endpoints?: { internal?: string | undefined; public?: string | undefined };
  /** The `httpdCustomization.customConfigSecret` Secret's files (key → content). */
  httpdCustomFiles?: Record<string, string>;
}

export function keystoneConfigData(
  cr: KeystoneAPI,
  spec: ResolvedSpec,
  inputs: KeystoneConfigInputs,
): KeystoneConfigData {
  const base = KeystoneNames.serviceBase(cr);
  const ns = cr.metadata.namespace ?? '';
  return {
    databaseConnection: databaseConnectionUrl({
      user: inputs.databaseUser ?? databaseUser(spec),
      password: inputs.databasePassword,
      host: inputs.databaseHostname,
      database: KEYSTONE_DATABASE,
    }),
    databaseTls: inputs.databaseTls ?? false,
    memcachedServers: inputs.memcachedServers,
    memcachedServersWithInet: inputs.memcachedServersWithInet ?? inputs.memcachedServers,
    memcachedTls: inputs.memcachedTls ?? false,
    memcachedMtls: Boolean(spec.memcachedMtlsSecret),
    transportUrl: inputs.notifications?.transportUrl ?? '',
    quorumQueues: inputs.notifications?.quorumQueues ?? false,
    enableSecureRBAC: spec.enableSecureRBAC,
    fernetMaxActiveKeys: spec.fernetMaxActiveKeys,
    processNumber: spec.processNumber,
    timeout: spec.apiTimeout,
    region: spec.region,
    vhosts: (['internal', 'public'] as const).map((endpoint) => {
      const files = httpdVhostCertFiles(endpoint);
      return {
        endpoint,
        serverName: `${base}-${endpoint}.${ns}.svc`,
        tls: tlsEnabled(spec.tls, endpoint),
        certificateFile: files.certificateFile,
        keyFile: files.keyFile,
        override: Object.values(inputs.httpdCustomFiles ?? {}).some((v) => v !== ''),
      };
    }),
    endpoints: { internal: inputs.endpoints?.internal ?? '', public: inputs.endpoints?.public ?? '' },
    httpdCustomFiles: inputs.httpdCustomFiles ?? {},
  };
}

/** Upstream's template parameter names, substituted into user text as `{{ .Name }}`. */
function customDataParameters(d: KeystoneConfigData): Record<string, string | number | boolean> {
  return {
    DatabaseConnection: d.databaseConnection,
    MemcachedServers: d.memcachedServers,
    MemcachedServersWithInet: d.memcachedServersWithInet,
    MemcachedTLS: d.memcachedTls,
    TransportURL: d.transportUrl,
    QuorumQueues: d.quorumQueues,
    EnableSecureRBAC: d.enableSecureRBAC,
    FernetMaxActiveKeys: d.fernetMaxActiveKeys,
    ProcessNumber: d.processNumber,
    TimeOut: d.timeout,
    Region: d.region,
    KeystoneEndpointInternal: d.endpoints.internal,
    KeystoneEndpointPublic: d.endpoints.public,
  };
}

/**
 * The files of `<cr>-config-data`: keystone.conf, httpd.conf, ssl.conf, the kolla config, custom.conf (from
 * customServiceConfig, with upstream's `{{ .Param }}` substitution), my.cnf, then `defaultConfigOverwrite`
 * entries, which win over generated files of the same name (as upstream's CustomData does).
 */
export function configFiles(spec: ResolvedSpec, data: KeystoneConfigData): Record<string, string> {
  return {
    'keystone.conf': renderString(keystoneConfTemplate, data, 'keystone.conf'),
    'httpd.conf': renderString(httpdConfTemplate, data, 'httpd.conf'),
    'ssl.conf': httpdSslConf,
    'keystone-api-config.json': keystoneApiKollaConfig(),
    ...renderCustomData({ 'custom.conf': spec.customServiceConfig ?? '' }, customDataParameters(data)),
    'my.cnf': databaseClientConfig(data.databaseTls ? {} : undefined),
    ...httpdCustomConfigFiles(data),
    ...renderCustomData(spec.defaultConfigOverwrite ?? {}, customDataParameters(data)),
  };
}

/**
 * `httpdCustomization.customConfigSecret`: each non-empty key, for each vhost, as
 * `httpd_custom_<endpoint>_<key>` (rendered with the same parameters as custom.conf); kolla copies
 * them to /etc/httpd/conf/ and each vhost includes its own.
 */
function httpdCustomConfigFiles(data: KeystoneConfigData): Record<string, string> {
  const out: Record<string, string> = {};
  const keys = Object.keys(data.httpdCustomFiles)
    .filter((k) => data.httpdCustomFiles[k] !== '')
    .sort();
  for (const v of data.vhosts) {
    for (const key of keys) {
      const name = `httpd_custom_${v.endpoint}_${key}`;
      Object.assign(
        out,
        renderCustomData({ [name]: data.httpdCustomFiles[key] ?? '' }, customDataParameters(data)),
      );
    }
  }
  return out;
}
