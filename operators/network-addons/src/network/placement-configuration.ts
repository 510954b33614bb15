import type { Placement, PlacementConfiguration } from '../api/placement.js';

/** Infra components prefer control-plane nodes (new and legacy role labels). */
export const defaultInfraPlacement = (): Placement => ({
  affinity: {
    nodeAffinity: {
      preferredDuringSchedulingIgnoredDuringExecution: [
        {
          weight: 10,
          preference: {
            matchExpressions: [{ key: 'node-role.kubernetes.io/control-plane', operator: 'Exists' }],
          },
        },
        {
          weight: 1,
          preference: { matchExpressions: [{ key: 'node-role.kubernetes.io/master', operator: 'Exists' }] },
        },
      ],
    },
  },
});

/** Per-node components run on every Linux node, cordoned ones included. */
export const defaultWorkloadsPlacement = (): Placement => ({
  nodeSelector: { 'kubernetes.io/os': 'linux' },
  tolerations: [{ key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' }],
});

export interface FilledPlacementConfiguration {
  infra: Placement;
  workloads: Placement;
}

/** A missing part gets its default; placement is not carried over from the previous config (upstream). */
export function fillPlacementConfigurationDefaults(
  conf: PlacementConfiguration | undefined,
): FilledPlacementConfiguration {
  return {
    infra: conf?.infra ?? defaultInfraPlacement(),
    workloads: conf?.workloads ?? defaultWorkloadsPlacement(),
  };
}
