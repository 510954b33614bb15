import {
  httpdSslConf,
  httpdVhostCertFiles,
  renderCustomData,
  renderString,
} from '@stackops/lib-common/openstack';
import { PLACEMENT_API_PORT, PLACEMENT_SERVICE_NAME } from '../api/constants.js';
import { type HttpdConfParams, httpdConfTemplate } from './httpd-conf.js';
import { apiKollaConfig, dbSyncKollaConfig } from './kolla-config.js';
import { type PlacementConfParams, placementConfTemplate } from './placement-conf.js';

export const PLACEMENT_LOG_FILE = '/var/log/placement/placement-api.log';
/** mod_wsgi processes per virtual host (upstream fixed value). */
const WSGI_PROCESSES = 3;

/** File names inside the `<name>-config-data` Secret. */
export const ConfigFiles = {
  placementConf: 'placement.conf',
  customConf: 'custom.conf',
  httpdConf: 'httpd.conf',
  sslConf: 'ssl.conf',
  myCnf: 'my.cnf',
  policy: 'policy.yaml',
  apiKolla: 'placement-api-config.json',
  dbSyncKolla: 'placement-dbsync-config.json',
} as const;

export interface ConfigInputs {
  namespace: string;
  serviceUser: string;
  servicePassword: string;
  /** The application credential placement authenticates with instead of its password, when set. */
  applicationCredential?: { id: string; secret: string } | undefined;
  databaseConnection: string;
  /** my.cnf content for the database client. */
  databaseClientConfig: string;
  keystonePublicURL: string;
  keystoneInternalURL: string;
  region: string;
  apiTimeout: number;
  /** Endpoints that serve https (they have a certificate Secret). */
  tlsEndpoints?: readonly string[];
  customServiceConfig?: string | undefined;
  defaultConfigOverwrite?: Record<string, string> | undefined;
}

/**
 * Every file of the config Secret, rendered. Pure: the same inputs give the same bytes.
 * `customServiceConfig` is rendered with the placement.conf parameters too (as upstream renders its
 * custom data), and kept verbatim when it is not a valid template.
 */
export function renderConfigFiles(inputs: ConfigInputs): Record<string, string> {
  const conf: PlacementConfParams = {
    logFile: PLACEMENT_LOG_FILE,
    databaseConnection: inputs.databaseConnection,
    keystonePublicURL: inputs.keystonePublicURL,
    keystoneInternalURL: inputs.keystoneInternalURL,
    serviceUser: inputs.serviceUser,
    servicePassword: inputs.servicePassword,
    applicationCredential: inputs.applicationCredential,
    region: inputs.region,
  };
  const httpd: HttpdConfParams = {
    port: PLACEMENT_API_PORT,
    timeout: inputs.apiTimeout,
    processes: WSGI_PROCESSES,
    vhosts: ['internal', 'public'].map((endpoint) => ({
      endpoint,
      serverName: `${PLACEMENT_SERVICE_NAME}-${endpoint}.${inputs.namespace}.svc`,
      tls: inputs.tlsEndpoints?.includes(endpoint) ? httpdVhostCertFiles(endpoint) : undefined,
    })),
  };
  const files: Record<string, string> = {
    [ConfigFiles.placementConf]: renderString(placementConfTemplate, conf, ConfigFiles.placementConf),
    [ConfigFiles.httpdConf]: renderString(httpdConfTemplate, httpd, ConfigFiles.httpdConf),
    [ConfigFiles.sslConf]: httpdSslConf,
    ...renderCustomData({ [ConfigFiles.customConf]: inputs.customServiceConfig ?? '' }, conf),
    [ConfigFiles.myCnf]: inputs.databaseClientConfig,
    [ConfigFiles.apiKolla]: `${JSON.stringify(apiKollaConfig(), null, 2)}\n`,
    [ConfigFiles.dbSyncKolla]: `${JSON.stringify(dbSyncKollaConfig(), null, 2)}\n`,
  };
  // defaultConfigOverwrite is limited to policy.yaml by the CRD; it lands beside the other files.
  for (const [name, content] of Object.entries(inputs.defaultConfigOverwrite ?? {})) files[name] = content;
  return files;
}
