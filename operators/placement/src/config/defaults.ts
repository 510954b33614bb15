import { DEFAULT_MARIADB_CLIENT_IMAGE, MARIADB_IMAGE_ENV } from '@stackops/lib-common/database';
import { PLACEMENT_API_DEFAULT_IMAGE, PLACEMENT_API_IMAGE_ENV } from '../api/constants.js';

/** Settings of the operator that do not come from a custom resource. */
export interface PlacementDefaults {
  /** Image for a PlacementAPI without `containerImage`. */
  apiImage: string;
  /** Image with a MariaDB client, for the db-create Job. */
  mariadbImage: string;
}

/** The defaults from the operator's environment (the chart sets the images from `relatedImages`). */
export function defaultsFromEnv(env: Readonly<Record<string, string | undefined>>): PlacementDefaults {
  return {
    apiImage: env[PLACEMENT_API_IMAGE_ENV] || PLACEMENT_API_DEFAULT_IMAGE,
    mariadbImage: env[MARIADB_IMAGE_ENV] || DEFAULT_MARIADB_CLIENT_IMAGE,
  };
}
