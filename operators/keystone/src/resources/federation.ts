import type { KubeObject } from '@stackops/lib-common/client';
import { buildConfigSecret } from '@stackops/lib-common/openstack';
import type { KeystoneAPI } from '../api/keystone-api.js';
import { keystoneGroupLabels } from './names.js';

type Json = Record<string, unknown>;

/** The key of the `federatedRealmConfig` Secret holding `{ "<file name>": <JSON content>, … }`. */
export const FEDERATION_CONFIG_KEY = 'federation-config.json';
/** The Secret the realm files are copied into, one key per file by sorted index (upstream's name). */
const FEDERATION_SECRET = 'keystone-multirealm-federation-secret';
/** Where the realm files are mounted; kolla copies them to /var/lib/httpd/metadata/. */
const FEDERATION_MOUNT_PATH = '/var/lib/config-data/default/multirealm-federation';

/** A `federation-config.json` that is not a JSON object of files. */
export class FederationConfigError extends Error {
  override readonly name = 'FederationConfigError';
}

/**
 * Splits `federation-config.json` into its files (sorted by name): key `<i>` holds the JSON text of
 * file i, `_filenames.json` the sorted names (upstream's layout).
 */
export function federationFiles(
  configJson: string,
  secretName: string,
): { filenames: string[]; data: Record<string, string> } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(configJson);
  } catch {
    throw new FederationConfigError(`${FEDERATION_CONFIG_KEY} in Secret ${secretName} is not valid JSON`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new FederationConfigError(
      `${FEDERATION_CONFIG_KEY} in Secret ${secretName} must be a JSON object of files`,
    );
  const entries = parsed as Record<string, unknown>;
  const filenames = Object.keys(entries).sort();
  const bad = filenames.find((f) => f === '' || f.includes('/') || f === '.' || f === '..');
  if (bad !== undefined)
    throw new FederationConfigError(
      `${FEDERATION_CONFIG_KEY} in Secret ${secretName}: "${bad}" is not a file name`,
    );
  const data: Record<string, string> = {};
  filenames.forEach((f, i) => {
    data[String(i)] = JSON.stringify(entries[f]);
  });
  data['_filenames.json'] = JSON.stringify(filenames);
  return { filenames, data };
}

export function buildFederationSecret(cr: KeystoneAPI, data: Record<string, string>): KubeObject {
  return buildConfigSecret({
    name: FEDERATION_SECRET,
    namespace: cr.metadata.namespace ?? '',
    labels: keystoneGroupLabels(cr),
    data,
  });
}

/** An emptyDir at the mount path and one subPath mount per realm file (upstream's volumes). */
export function federationVolumes(filenames: readonly string[]): { volumes: Json[]; mounts: Json[] } {
  if (filenames.length === 0) return { volumes: [], mounts: [] };
  const volumes: Json[] = [{ name: 'federation-realm-dir', emptyDir: {} }];
  const mounts: Json[] = [{ name: 'federation-realm-dir', mountPath: FEDERATION_MOUNT_PATH }];
  filenames.forEach((f, i) => {
    volumes.push({
      name: `federation-realm-volume${i}`,
      secret: { secretName: FEDERATION_SECRET, defaultMode: 0o644 },
    });
    mounts.push({
      name: `federation-realm-volume${i}`,
      mountPath: `${FEDERATION_MOUNT_PATH}/${f}`,
      subPath: String(i),
      readOnly: true,
    });
  });
  return { volumes, mounts };
}
