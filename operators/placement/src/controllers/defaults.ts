import { DEFAULT_MARIADB_CLIENT_IMAGE, MARIADB_IMAGE_ENV } from '@stackops/lib-common/database';
import { PLACEMENT_API_DEFAULT_IMAGE, PLACEMENT_API_IMAGE_ENV } from '../api/constants.js';
import type { PlacementDefaults } from './state.js';

/** Image defaults from the environment (the chart sets them from `relatedImages`). */
export function defaultsFromEnv(env: Readonly<Record<string, string | undefined>>): PlacementDefaults {
  return {
    apiImage: env[PLACEMENT_API_IMAGE_ENV] || PLACEMENT_API_DEFAULT_IMAGE,
    mariadbImage: env[MARIADB_IMAGE_ENV] || DEFAULT_MARIADB_CLIENT_IMAGE,
  };
}
