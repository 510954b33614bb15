import type { PlacementAPI } from '../api/kinds.js';
import { ConfigFiles } from '../templates/config-files.js';
import { childNames, placementServiceLabels } from './names.js';
import {
  KOLLA_START,
  type PodTls,
  placementSecurityContext,
  placementVolumeMounts,
  placementVolumes,
} from './pod-template.js';

/**
 * The `<name>-db-sync` Job: kolla copies the config and runs `placement-manage db sync`, trusting
 * the CA bundle when `tls.caBundleSecretName` is set (for a database with TLS). The Job carries the service labels, its
 * pods do not (as upstream: `-l service=placement` finds API pods only). Its pod spec holds no
 * config hash, so only an image, node selector, network or CA bundle Secret name change re-runs it
 * (not the CA's content).
 */
export function dbSyncJob(cr: PlacementAPI, image: string, podAnnotations: Record<string, string>) {
  const names = childNames(cr.metadata.name!);
  const tls: PodTls = { tls: cr.spec.tls };
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name: names.dbSyncJob,
      namespace: cr.metadata.namespace,
      labels: placementServiceLabels(cr.metadata.name!),
    },
    spec: {
      backoffLimit: 6,
      template: {
        metadata: { annotations: podAnnotations },
        spec: {
          restartPolicy: 'OnFailure',
          serviceAccountName: names.serviceAccount,
          automountServiceAccountToken: false,
          ...(cr.spec.nodeSelector ? { nodeSelector: cr.spec.nodeSelector } : {}),
          volumes: placementVolumes(names, tls),
          containers: [
            {
              name: names.dbSyncContainer,
              image,
              imagePullPolicy: 'IfNotPresent',
              ...KOLLA_START,
              env: [
                { name: 'KOLLA_BOOTSTRAP', value: 'true' },
                { name: 'KOLLA_CONFIG_STRATEGY', value: 'COPY_ALWAYS' },
              ],
              volumeMounts: placementVolumeMounts(ConfigFiles.dbSyncKolla, tls),
              securityContext: placementSecurityContext(),
            },
          ],
        },
      },
    },
  };
}
