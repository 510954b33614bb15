import { caBundleVolumes, type JobObject } from '@stackops/lib-common/openstack';
import type { KeystoneAPI } from '../api/keystone-api.js';
import type { ResolvedSpec } from '../config/spec.js';
import { memcachedMtlsVolumes } from './memcached-mtls.js';
import { KEYSTONE_UID, KeystoneNames, keystoneServiceLabels } from './names.js';
import { apiMounts, keystoneVolumes, mounts } from './volumes.js';

type Json = Record<string, unknown>;

export interface JobInput {
  cr: KeystoneAPI;
  spec: ResolvedSpec;
  /** The multus networks annotation (always present, `[]` without attachments). */
  podAnnotations: Record<string, string>;
}

const kollaEnv = [
  { name: 'KOLLA_CONFIG_STRATEGY', value: 'COPY_ALWAYS' },
  { name: 'KOLLA_BOOTSTRAP', value: 'true' },
];

function keystoneJob(input: JobInput, name: string, container: Json, volumes: Json[]): JobObject {
  const labels = keystoneServiceLabels(input.cr);
  const nodeSelector = input.spec.nodeSelector;
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name, namespace: input.cr.metadata.namespace ?? '', labels },
    spec: {
      backoffLimit: 6,
      template: {
        // upstream: only the Job carries the service labels, not its pods (`-l service=keystone`
        // finds the API pods alone)
        metadata: { annotations: { ...input.podAnnotations } },
        spec: {
          restartPolicy: 'OnFailure',
          serviceAccountName: KeystoneNames.serviceAccount(input.cr),
          ...(Object.keys(nodeSelector).length > 0 ? { nodeSelector } : {}),
          containers: [
            { name, image: input.spec.containerImage, imagePullPolicy: 'IfNotPresent', ...container },
          ],
          volumes,
        },
      },
    },
  };
}

/** `keystone-db-sync`: `keystone-manage db_sync` with keystone.conf and my.cnf. */
export function buildDbSyncJob(input: JobInput): JobObject {
  const ca = caBundleVolumes(input.spec.tls);
  const volumes = [...keystoneVolumes(input.cr, input.spec.fernetMaxActiveKeys), ...ca.volumes];
  return keystoneJob(
    input,
    KeystoneNames.dbSyncJob,
    {
      command: ['/bin/bash'],
      args: ['-c', 'keystone-manage db_sync'],
      env: kollaEnv,
      volumeMounts: [mounts.keystoneConf, mounts.myCnf, ...ca.mounts],
      securityContext: {
        runAsUser: KEYSTONE_UID,
        runAsGroup: KEYSTONE_UID,
        allowPrivilegeEscalation: false,
        capabilities: { drop: ['MKNOD'] },
      },
    },
    volumes,
  );
}

/**
 * `keystone-bootstrap`: `keystone-manage bootstrap` creates the admin user, project, role, region
 * and keystone's own catalog entries. Its env holds the endpoint URLs, so a new URL re-runs it.
 */
export function buildBootstrapJob(
  input: JobInput,
  endpoints: { internal: string; public: string },
): JobObject {
  const s = input.spec;
  const ca = caBundleVolumes(s.tls);
  const mtls = memcachedMtlsVolumes(s, 'job');
  return keystoneJob(
    input,
    KeystoneNames.bootstrapJob,
    {
      command: ['/bin/bash'],
      args: ['-c', '/usr/local/bin/kolla_set_configs && keystone-manage bootstrap'],
      env: [
        ...kollaEnv,
        {
          name: 'OS_BOOTSTRAP_PASSWORD',
          valueFrom: { secretKeyRef: { name: s.secret, key: s.passwordSelectors.admin } },
        },
        { name: 'OS_BOOTSTRAP_USERNAME', value: s.adminUser },
        { name: 'OS_BOOTSTRAP_PROJECT_NAME', value: s.adminProject },
        { name: 'OS_BOOTSTRAP_SERVICE_NAME', value: 'keystone' },
        { name: 'OS_BOOTSTRAP_REGION_ID', value: s.region },
        { name: 'OS_BOOTSTRAP_INTERNAL_URL', value: endpoints.internal },
        { name: 'OS_BOOTSTRAP_PUBLIC_URL', value: endpoints.public },
      ],
      volumeMounts: [...apiMounts, ...ca.mounts, ...mtls.mounts],
      securityContext: { runAsUser: 0, allowPrivilegeEscalation: false },
    },
    [...keystoneVolumes(input.cr, s.fernetMaxActiveKeys), ...ca.volumes, ...mtls.volumes],
  );
}
