import type { KubeObject } from '@stackops/lib-common/client';
import {
  APP_VERSION_LABEL,
  COMPONENT_DEFAULT_VALUE,
  COMPONENT_LABEL,
  MANAGED_BY_LABEL,
  MANAGED_BY_VALUE,
  PART_OF_LABEL,
  PROMETHEUS_LABEL,
  VERSION_LABEL,
} from '../api/constants.js';

/** Kinds whose pod template gets the relationship labels too. */
const WORKLOAD_KINDS = new Set(['DaemonSet', 'ReplicaSet', 'Deployment', 'StatefulSet']);

/** Label-safe text: every run of other characters than [a-zA-Z0-9_.-] becomes `_`, at most 63 characters. */
export const toLabelValue = (text: string): string => text.replace(/[^a-zA-Z0-9_.-]+/g, '_').slice(0, 63);

/** Label selector of every object the operator renders. */
export const MANAGED_SELECTOR = `${MANAGED_BY_LABEL}=${MANAGED_BY_VALUE}`;

/**
 * The labels every rendered object carries: the operator version, the relationship labels
 * (component defaults to `network`, part-of/version only when the CR carries them; managed-by is
 * always `cnao-operator`) and `prometheus.cnao.io` (false for KubeMacPool's controller manager).
 * Workloads get the relationship labels on their pod template as well, not the version label, so an
 * operator upgrade alone does not restart pods.
 */
export function withOperatorLabels(
  obj: KubeObject,
  crLabels: Record<string, string>,
  operatorVersion: string,
): KubeObject {
  const own = obj.metadata.labels ?? {};
  const relationship: Record<string, string> = {
    [COMPONENT_LABEL]: crLabels[COMPONENT_LABEL] ?? COMPONENT_DEFAULT_VALUE,
    ...(crLabels[PART_OF_LABEL] ? { [PART_OF_LABEL]: crLabels[PART_OF_LABEL] } : {}),
    ...(crLabels[APP_VERSION_LABEL] ? { [APP_VERSION_LABEL]: crLabels[APP_VERSION_LABEL] } : {}),
    [PROMETHEUS_LABEL]: own['control-plane'] === 'mac-controller-manager' ? 'false' : 'true',
    [MANAGED_BY_LABEL]: MANAGED_BY_VALUE,
  };
  const labelled: KubeObject = {
    ...obj,
    metadata: {
      ...obj.metadata,
      labels: { ...own, [VERSION_LABEL]: toLabelValue(operatorVersion), ...relationship },
    },
  };
  if (!obj.kind || !WORKLOAD_KINDS.has(obj.kind)) return labelled;
  const spec = obj['spec'] as { template?: { metadata?: { labels?: Record<string, string> } } };
  const template = spec.template ?? {};
  return {
    ...labelled,
    spec: {
      ...spec,
      template: {
        ...template,
        metadata: { ...template.metadata, labels: { ...template.metadata?.labels, ...relationship } },
      },
    },
  };
}
