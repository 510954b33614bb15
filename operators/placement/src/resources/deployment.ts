import type { KubeObject } from '@stackops/lib-common/client';
import { buildDeployment } from '@stackops/lib-common/openstack';
import type { PlacementAPI } from '../api/kinds.js';
import { childNames, placementServiceLabels } from './names.js';
import { apiContainers, placementVolumes } from './pod-template.js';

export interface PlacementDeploymentInput {
  image: string;
  configHash: string;
  /** Pod annotations, e.g. the multus networks annotation. */
  podAnnotations: Record<string, string>;
}

/**
 * The placement Deployment `<name>`: pods labelled `{service: placement, owner: <name>}`, spread
 * over nodes, running as `placement-<name>` (owner reference added when applied).
 */
export function placementDeployment(cr: PlacementAPI, input: PlacementDeploymentInput): KubeObject {
  const names = childNames(cr.metadata.name!);
  return buildDeployment({
    name: names.deployment,
    namespace: cr.metadata.namespace!,
    selector: placementServiceLabels(cr.metadata.name!),
    podAnnotations: input.podAnnotations,
    replicas: cr.spec.replicas,
    serviceAccountName: names.serviceAccount,
    nodeSelector: cr.spec.nodeSelector,
    configHash: input.configHash,
    volumes: placementVolumes(names.configSecret),
    containers: apiContainers({
      image: input.image,
      logContainer: names.logContainer,
      apiContainer: names.apiContainer,
      resources: cr.spec.resources,
    }),
  });
}
