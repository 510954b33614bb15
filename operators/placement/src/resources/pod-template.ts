import type { ResourceRequirements } from '@stackops/keystone-operator';
import { type Container, httpProbe } from '@stackops/lib-common/openstack';
import { PLACEMENT_API_PORT } from '../api/constants.js';
import { ConfigFiles, PLACEMENT_LOG_FILE } from '../templates/config-files.js';
import { CONFIG_MOUNT_DIR } from '../templates/kolla-config.js';

/** The uid/gid of the placement user in the upstream images. */
const PLACEMENT_UID = 42482;
const KOLLA_CONFIG_FILE = '/var/lib/kolla/config_files/config.json';
const LOG_DIR = '/var/log/placement';

const Volumes = { config: 'config-data', logs: 'logs' } as const;

export function placementVolumes(configSecret: string) {
  return [
    { name: Volumes.config, secret: { secretName: configSecret, defaultMode: 0o640 } },
    { name: Volumes.logs, emptyDir: {} },
  ];
}

/** Mounts of the config files, the kolla config.json (`kollaFile` from the config Secret) and the log dir. */
export function placementVolumeMounts(kollaFile: string) {
  return [
    { name: Volumes.config, mountPath: CONFIG_MOUNT_DIR, readOnly: true },
    { name: Volumes.config, mountPath: KOLLA_CONFIG_FILE, subPath: kollaFile, readOnly: true },
    { name: Volumes.logs, mountPath: LOG_DIR },
  ];
}

/**
 * No allowPrivilegeEscalation: false: kolla_start, run as placement, copies the config files
 * through sudo, which the no_new_privs flag that setting sets refuses.
 */
export const placementSecurityContext = () => ({
  runAsUser: PLACEMENT_UID,
  runAsGroup: PLACEMENT_UID,
  capabilities: { drop: ['MKNOD'] },
});

export interface ApiContainersInput {
  image: string;
  logContainer: string;
  apiContainer: string;
  resources?: ResourceRequirements | undefined;
}

/**
 * The two containers of a placement pod: `-log` tails the API log file to stdout, `-api` runs httpd.
 * Both get the same mounts, probes and resources (CONFIG_HASH is added by the Deployment builder).
 */
export function apiContainers(input: ApiContainersInput): Container[] {
  const probe = () => httpProbe({ path: '/', port: PLACEMENT_API_PORT });
  const common = {
    image: input.image,
    imagePullPolicy: 'IfNotPresent',
    env: [{ name: 'KOLLA_CONFIG_STRATEGY', value: 'COPY_ALWAYS' }],
    volumeMounts: placementVolumeMounts(ConfigFiles.apiKolla),
    livenessProbe: probe(),
    readinessProbe: probe(),
    securityContext: placementSecurityContext(),
    ...(input.resources ? { resources: input.resources } : {}),
  };
  return [
    {
      name: input.logContainer,
      command: [
        '/usr/bin/dumb-init',
        '--single-child',
        '--',
        '/usr/bin/tail',
        '-n+1',
        '-F',
        PLACEMENT_LOG_FILE,
      ],
      ...common,
    },
    {
      name: input.apiContainer,
      command: ['/bin/bash', '-c', '/usr/local/bin/kolla_start'],
      ports: [{ name: 'placement', containerPort: PLACEMENT_API_PORT, protocol: 'TCP' }],
      ...common,
    },
  ];
}
