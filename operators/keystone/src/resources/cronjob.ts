import type { KubeObject } from '@stackops/lib-common/client';
import { caBundleVolumes } from '@stackops/lib-common/openstack';
import type { KeystoneAPI } from '../api/keystone-api.js';
import type { ResolvedSpec } from '../config/spec.js';
import { memcachedMtlsVolumes } from './memcached-mtls.js';
import { KEYSTONE_UID, KeystoneNames, keystoneServiceLabels } from './names.js';
import { keystoneVolumes, mounts } from './volumes.js';

/** `keystone-cron`: `keystone-manage trust_flush` on `trustFlushSchedule`, never two at once. */
export function buildTrustFlushCronJob(
  cr: KeystoneAPI,
  spec: ResolvedSpec,
  podAnnotations: Record<string, string>,
): KubeObject {
  const args = spec.trustFlushArgs.split(' ').filter((a) => a !== '');
  const ca = caBundleVolumes(spec.tls);
  const mtls = memcachedMtlsVolumes(spec, 'cron');
  const volumes = [...keystoneVolumes(cr, spec.fernetMaxActiveKeys), ...ca.volumes, ...mtls.volumes];
  return {
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: { name: KeystoneNames.cronJob, namespace: cr.metadata.namespace ?? '' },
    spec: {
      schedule: spec.trustFlushSchedule,
      suspend: spec.trustFlushSuspend,
      concurrencyPolicy: 'Forbid',
      // upstream: labels and annotations on the Job template, none on its pods
      jobTemplate: {
        metadata: { labels: keystoneServiceLabels(cr), annotations: { ...podAnnotations } },
        spec: {
          parallelism: 1,
          completions: 1,
          template: {
            spec: {
              restartPolicy: 'Never',
              serviceAccountName: KeystoneNames.serviceAccount(cr),
              securityContext: { fsGroup: KEYSTONE_UID },
              ...(Object.keys(spec.nodeSelector).length > 0 ? { nodeSelector: spec.nodeSelector } : {}),
              containers: [
                {
                  name: KeystoneNames.cronJob,
                  image: spec.containerImage,
                  imagePullPolicy: 'IfNotPresent',
                  command: ['keystone-manage', 'trust_flush', ...args],
                  env: [{ name: 'KOLLA_CONFIG_STRATEGY', value: 'COPY_ALWAYS' }],
                  volumeMounts: [
                    mounts.keystoneConf,
                    mounts.myCnf,
                    mounts.fernetKeys,
                    ...ca.mounts,
                    ...mtls.mounts,
                  ],
                  securityContext: {
                    runAsUser: KEYSTONE_UID,
                    runAsGroup: KEYSTONE_UID,
                    runAsNonRoot: true,
                    allowPrivilegeEscalation: false,
                    capabilities: { drop: ['ALL'] },
                  },
                },
              ],
              volumes,
            },
          },
        },
      },
    },
  };
}
