import type { KubeObject } from '@stackops/lib-common/client';
import type { KeystoneAPI } from '../api/keystone-api.js';
import type { KeysResult } from '../fernet/keys.js';
import { KeystoneNames, keystoneGroupLabels, ROTATED_AT_ANNOTATION } from './names.js';

/**
 * The `keystone` Secret holding the fernet and credential keys, stamped with the rotation time.
 * Keys sorted by code unit: `localeCompare` would load ICU's collator into the process (~3 MiB).
 */
export function buildKeysSecret(cr: KeystoneAPI, keys: KeysResult): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: KeystoneNames.fernetSecret,
      namespace: cr.metadata.namespace ?? '',
      labels: keystoneGroupLabels(cr),
      annotations: { [ROTATED_AT_ANNOTATION]: keys.rotatedAt },
    },
    type: 'Opaque',
    data: Object.fromEntries(Object.entries(keys.data).sort(([a], [b]) => (a < b ? -1 : 1))),
  };
}
