import type { KeystoneAPI } from '../api/keystone-api.js';
import { credentialKey, fernetKey } from '../fernet/keys.js';
import { KeystoneNames } from './names.js';

type Json = Record<string, unknown>;

/**
 * Volumes of the API pods and Jobs. Keys are mounted from the Secret without subPath so kubelet
 * refreshes the files in place after a rotation (no restart).
 */
export function keystoneVolumes(cr: KeystoneAPI, maxActiveKeys: number): Json[] {
  const items = Array.from({ length: maxActiveKeys }, (_, i) => ({ key: fernetKey(i), path: String(i) }));
  return [
    { name: 'config-data', secret: { secretName: KeystoneNames.configSecret(cr), defaultMode: 0o644 } },
    { name: 'fernet-keys', secret: { secretName: KeystoneNames.fernetSecret, items } },
    {
      name: 'credential-keys',
      secret: {
        secretName: KeystoneNames.fernetSecret,
        items: [0, 1].map((i) => ({ key: credentialKey(i), path: String(i) })),
      },
    },
  ];
}

export const mounts = {
  configData: { name: 'config-data', mountPath: '/var/lib/config-data/default', readOnly: true },
  kollaConfig: {
    name: 'config-data',
    mountPath: '/var/lib/kolla/config_files/config.json',
    subPath: 'keystone-api-config.json',
    readOnly: true,
  },
  keystoneConf: {
    name: 'config-data',
    mountPath: '/etc/keystone/keystone.conf',
    subPath: 'keystone.conf',
    readOnly: true,
  },
  myCnf: { name: 'config-data', mountPath: '/etc/my.cnf', subPath: 'my.cnf', readOnly: true },
  fernetKeys: { name: 'fernet-keys', mountPath: '/etc/keystone/fernet-keys', readOnly: true },
  credentialKeys: { name: 'credential-keys', mountPath: '/etc/keystone/credential-keys', readOnly: true },
} as const;
