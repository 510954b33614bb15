import type { PlacementAPI } from '../api/kinds.js';
import { ConfigFiles } from '../templates/config-files.js';
import { childNames, placementServiceLabels } from './names.js';
import { placementSecurityContext, placementVolumeMounts, placementVolumes } from './pod-template.js';

/**
 * The `<name>-db-sync` Job: kolla copies the config and runs `placement-manage db sync`. Its pod
 * spec holds no config hash, so only an image, node selector or volume change re-runs it.
 */
export function dbSyncJob(cr: PlacementAPI, image: string, podAnnotations: Record<string, string>) {
  const names = childNames(cr.metadata.name!);
  const labels = placementServiceLabels(cr.metadata.name!);
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: names.dbSyncJob, namespace: cr.metadata.namespace, labels },
    spec: {
      backoffLimit: 6,
      template: {
        metadata: { labels, annotations: podAnnotations },
        spec: {
          restartPolicy: 'OnFailure',
          serviceAccountName: names.serviceAccount,
          ...(cr.spec.nodeSelector ? { nodeSelector: cr.spec.nodeSelector } : {}),
          volumes: placementVolumes(names.configSecret),
          containers: [
            {
              name: names.dbSyncContainer,
              image,
              imagePullPolicy: 'IfNotPresent',
              command: ['/bin/bash', '-c', '/usr/local/bin/kolla_start'],
              env: [
                { name: 'KOLLA_CONFIG_STRATEGY', value: 'COPY_ALWAYS' },
                { name: 'KOLLA_BOOTSTRAP', value: 'true' },
              ],
              volumeMounts: placementVolumeMounts(ConfigFiles.dbSyncKolla),
              securityContext: placementSecurityContext(),
            },
          ],
        },
      },
    },
  };
}
