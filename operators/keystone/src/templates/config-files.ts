import { databaseClientConfig, databaseConnectionUrl } from '@stackops/lib-common/database';
import { httpdSslConf, renderCustomData, renderString } from '@stackops/lib-common/openstack';
import type { KeystoneAPI } from '../api/keystone-api.js';
import { databaseUser, type ResolvedSpec } from '../config/spec.js';
import { KEYSTONE_DATABASE, KeystoneNames } from '../resources/names.js';
import { httpdConfTemplate } from './httpd-conf.js';
import { keystoneConfTemplate } from './keystone-conf.js';
import { keystoneApiKollaConfig } from './kolla-config.js';

/** Everything the config templates read (and `customServiceConfig` may use). */
export interface KeystoneConfigData {
  databaseConnection: string;
  memcachedServers: string;
  enableSecureRBAC: boolean;
  fernetMaxActiveKeys: number;
  processNumber: number;
  timeout: number;
  region: string;
  vhosts: { endpoint: 'internal' | 'public'; serverName: string }[];
  /** The published URLs (empty on the first pass), for `{{ .KeystoneEndpointPublic }}` in custom text. */
  endpoints: { internal: string; public: string };
}

export interface KeystoneConfigInputs {
  databaseHostname: string;
  databasePassword: string;
  /** `host:port` list of memcached servers, comma-joined; empty when caching is off. */
  memcachedServers: string;
  endpoints?: { internal?: string | undefined; public?: string | undefined };
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
      user: databaseUser(spec),
      password: inputs.databasePassword,
      host: inputs.databaseHostname,
      database: KEYSTONE_DATABASE,
    }),
    memcachedServers: inputs.memcachedServers,
    enableSecureRBAC: spec.enableSecureRBAC,
    fernetMaxActiveKeys: spec.fernetMaxActiveKeys,
    processNumber: spec.processNumber,
    timeout: spec.apiTimeout,
    region: spec.region,
    vhosts: (['internal', 'public'] as const).map((endpoint) => ({
      endpoint,
      serverName: `${base}-${endpoint}.${ns}.svc`,
    })),
    endpoints: { internal: inputs.endpoints?.internal ?? '', public: inputs.endpoints?.public ?? '' },
  };
}

/** Upstream's template parameter names, substituted into user text as `{{ .Name }}`. */
function customDataParameters(d: KeystoneConfigData): Record<string, string | number | boolean> {
  return {
    DatabaseConnection: d.databaseConnection,
    MemcachedServers: d.memcachedServers,
    MemcachedServersWithInet: d.memcachedServers,
    MemcachedTLS: false,
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
    'my.cnf': databaseClientConfig(),
    ...renderCustomData(spec.defaultConfigOverwrite ?? {}, customDataParameters(data)),
  };
}
