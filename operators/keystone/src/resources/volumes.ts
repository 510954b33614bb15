import type { KeystoneAPI } from '../api/keystone-api.js';
import { credentialKey, fernetKey } from '../fernet/keys.js';
import { KeystoneNames } from './names.js';

type Json = Record<string, unknown>;

/**
 * Volumes of the API pods, Jobs and CronJob (upstream gives all of them the same four, in this
 * order). Keys are mounted from the Secret without subPath so kubelet refreshes the files in place
 * after a rotation (no restart).
 */
export function keystoneVolumes(cr: KeystoneAPI, maxActiveKeys: number): Json[] {
  const items = Array.from({ length: maxActiveKeys }, (_, i) => ({ key: fernetKey(i), path: String(i) }));
  return [
    { name: 'scripts', secret: { secretName: KeystoneNames.scriptsSecret(cr), defaultMode: 0o755 } },
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

/** Mounts with upstream's names, paths and read-only flags. */
export const mounts = {
  scripts: { name: 'scripts', mountPath: '/usr/local/bin/container-scripts', readOnly: true },
  configData: { name: 'config-data', mountPath: '/var/lib/config-data/default', readOnly: false },
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

/** The API container's (and bootstrap's) mounts, in upstream's order. */
export const apiMounts = [
  mounts.scripts,
  mounts.configData,
  mounts.kollaConfig,
  mounts.fernetKeys,
  mounts.credentialKeys,
] as const;
