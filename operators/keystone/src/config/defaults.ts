import { DEFAULT_MARIADB_CLIENT_IMAGE, MARIADB_IMAGE_ENV } from '@stackops/lib-common/database';
import { KEYSTONE_API_DEFAULT_IMAGE, KEYSTONE_API_IMAGE_ENV } from '../api/keystone-api.js';

/** Set when the operator runs outside the cluster network (e.g. `make demo`), where Service names do not resolve. */
export const KEYSTONE_AUTH_URL_OVERRIDE_ENV = 'KEYSTONE_AUTH_URL_OVERRIDE';

/** Settings of the operator that do not come from a custom resource. */
export interface KeystoneDefaults {
  /** Image for a KeystoneAPI without `containerImage`. */
  apiImage: string;
  /** Image with a MariaDB client, for the db-create Job. */
  mariadbImage: string;
  /**
   * The Keystone URL this operator itself calls instead of a KeystoneAPI's internal endpoint (never
   * a URL it publishes): for an operator outside the cluster network, which cannot resolve
   * `keystone-internal.<ns>.svc`.
   */
  authUrlOverride?: string;
}

/** The defaults from the operator's environment (the chart sets the images from `relatedImages`). */
export function defaultsFromEnv(env: Readonly<Record<string, string | undefined>>): KeystoneDefaults {
  const authUrlOverride = env[KEYSTONE_AUTH_URL_OVERRIDE_ENV];
  return {
    apiImage: env[KEYSTONE_API_IMAGE_ENV] || KEYSTONE_API_DEFAULT_IMAGE,
    mariadbImage: env[MARIADB_IMAGE_ENV] || DEFAULT_MARIADB_CLIENT_IMAGE,
    ...(authUrlOverride ? { authUrlOverride } : {}),
  };
}
