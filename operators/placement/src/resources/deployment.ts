import { PLACEMENT_SERVICE_NAME } from '../api/constants.js';
import type { PlacementAPI } from '../api/kinds.js';
import { childNames, serviceLabels } from './names.js';
import { apiContainers, placementVolumes, spreadOverNodes } from './pod-template.js';

export interface DeploymentInput {
  image: string;
  configHash: string;
  /** Pod annotations, e.g. the multus networks annotation. */
  podAnnotations: Record<string, string>;
}

/** The placement Deployment `<name>` (owner reference added when applied). */
export function placementDeployment(cr: PlacementAPI, input: DeploymentInput) {
  const names = childNames(cr.metadata.name!);
  const labels = serviceLabels(cr.metadata.name!);
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: names.deployment, namespace: cr.metadata.namespace, labels },
    spec: {
      replicas: cr.spec.replicas,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels, annotations: input.podAnnotations },
        spec: {
          serviceAccountName: names.serviceAccount,
          ...(cr.spec.nodeSelector ? { nodeSelector: cr.spec.nodeSelector } : {}),
          affinity: spreadOverNodes(PLACEMENT_SERVICE_NAME),
          volumes: placementVolumes(names.configSecret),
          containers: apiContainers({
            image: input.image,
            logContainer: names.logContainer,
            apiContainer: names.apiContainer,
            configHash: input.configHash,
            resources: cr.spec.resources,
          }),
        },
      },
    },
  };
}
