import type { KubeObject } from '@stackops/lib-common/client';
import { API_PRE_STOP, buildDeployment, type Container, tlsEnabled } from '@stackops/lib-common/openstack';
import type { PlacementAPI } from '../api/kinds.js';
import { ConfigFiles, PLACEMENT_LOG_FILE } from '../templates/config-files.js';
import { childNames, placementServiceLabels } from './names.js';
import {
  KOLLA_START,
  type PodTls,
  placementSecurityContext,
  placementVolumeMounts,
  placementVolumes,
} from './pod-template.js';
import { placementProbes } from './probes.js';

export interface PlacementDeploymentInput {
  image: string;
  configHash: string;
  /** Pod annotations, e.g. the multus networks annotation. */
  podAnnotations: Record<string, string>;
}

/**
 * The placement Deployment `<name>`: pods labelled `{service: placement, owner: <name>}`, spread
 * over nodes, running as `placement-<name>` without a service account token (they never call the
 * API server), with upstream's two containers: `-log` tails the API log to stdout, `-api` runs
 * httpd through kolla_start. Both share env (CONFIG_HASH first, sorted as upstream), mounts,
 * probes and resources.
 */
export function placementDeployment(cr: PlacementAPI, input: PlacementDeploymentInput): KubeObject {
  const names = childNames(cr.metadata.name!);
  const tls: PodTls = { tls: cr.spec.tls, endpointCerts: true };
  const common = {
    image: input.image,
    imagePullPolicy: 'IfNotPresent',
    securityContext: placementSecurityContext(),
    env: [
      { name: 'CONFIG_HASH', value: input.configHash },
      { name: 'KOLLA_CONFIG_STRATEGY', value: 'COPY_ALWAYS' },
    ],
    volumeMounts: placementVolumeMounts(ConfigFiles.apiKolla, tls),
    ...(cr.spec.resources ? { resources: cr.spec.resources } : {}),
    ...placementProbes(cr.spec.override?.probes, tlsEnabled(cr.spec.tls, 'public') ? 'HTTPS' : 'HTTP'),
  };
  const containers: Container[] = [
    {
      name: names.logContainer,
      command: ['/usr/bin/dumb-init'],
      args: ['--single-child', '--', '/usr/bin/tail', '-n+1', '-F', PLACEMENT_LOG_FILE],
      ...common,
    },
    { name: names.apiContainer, ...KOLLA_START, ...common, lifecycle: API_PRE_STOP },
  ];
  return buildDeployment({
    name: names.deployment,
    namespace: cr.metadata.namespace!,
    selector: placementServiceLabels(cr.metadata.name!),
    podAnnotations: input.podAnnotations,
    replicas: cr.spec.replicas,
    serviceAccountName: names.serviceAccount,
    nodeSelector: cr.spec.nodeSelector,
    volumes: placementVolumes(names, tls),
    containers,
    podSpec: { automountServiceAccountToken: false },
  });
}
