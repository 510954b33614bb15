import { caBundleVolumes, endpointCertVolumes, type TlsApiSpec } from '@stackops/lib-common/openstack';
import { PLACEMENT_UID } from '../api/constants.js';
import { CONFIG_MOUNT_DIR } from '../templates/kolla-config.js';

/**
 * Volumes and mounts of placement's pods, named, ordered and moded as upstream's, so that checks
 * written against upstream's pods (kuttl asserts compare lists in order) hold here too.
 */

const KOLLA_CONFIG_FILE = '/var/lib/kolla/config_files/config.json';
const LOG_DIR = '/var/log/placement';
const SCRIPTS_DIR = '/usr/local/bin/container-scripts';
const Volumes = { scripts: 'scripts', config: 'config-data', logs: 'logs' };

/** What a pod gets of `spec.tls`: the CA bundle always, the endpoint certificates only in API pods. */
export interface PodTls {
  tls?: TlsApiSpec | undefined;
  endpointCerts?: boolean;
}

/** Scripts (0755), config (0640), logs, then the CA bundle and the endpoint certificates. */
export function placementVolumes(names: { scriptsSecret: string; configSecret: string }, pod: PodTls = {}) {
  return [
    { name: Volumes.scripts, secret: { secretName: names.scriptsSecret, defaultMode: 0o755 } },
    { name: Volumes.config, secret: { secretName: names.configSecret, defaultMode: 0o640 } },
    { name: Volumes.logs, emptyDir: {} },
    ...caBundleVolumes(pod.tls).volumes,
    ...(pod.endpointCerts ? endpointCertVolumes(pod.tls).volumes : []),
  ];
}

/** Scripts, logs, the config Secret, the kolla config.json (`kollaFile` of the Secret), then TLS. */
export function placementVolumeMounts(kollaFile: string, pod: PodTls = {}) {
  return [
    { name: Volumes.scripts, mountPath: SCRIPTS_DIR, readOnly: true },
    { name: Volumes.logs, mountPath: LOG_DIR },
    { name: Volumes.config, mountPath: CONFIG_MOUNT_DIR },
    { name: Volumes.config, mountPath: KOLLA_CONFIG_FILE, subPath: kollaFile, readOnly: true },
    ...caBundleVolumes(pod.tls).mounts,
    ...(pod.endpointCerts ? endpointCertVolumes(pod.tls).mounts : []),
  ];
}

/**
 * Upstream's: the placement user, nothing else. kolla_start copies the config files through sudo,
 * which `allowPrivilegeEscalation: false` (no_new_privs) would refuse.
 */
export const placementSecurityContext = () => ({ runAsUser: PLACEMENT_UID });

/** `command` and `args` split as upstream: bash runs kolla_start, which runs the kolla config's command. */
export const KOLLA_START = { command: ['/bin/bash'], args: ['-c', '/usr/local/bin/kolla_start'] };
