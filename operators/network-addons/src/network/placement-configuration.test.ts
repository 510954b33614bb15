import { describe, expect, it } from 'vitest';
import {
  defaultInfraPlacement,
  defaultWorkloadsPlacement,
  fillPlacementConfigurationDefaults,
} from './placement-configuration.js';

describe('fillPlacementConfigurationDefaults', () => {
  it('gives both defaults when absent', () => {
    expect(fillPlacementConfigurationDefaults(undefined)).toEqual({
      infra: defaultInfraPlacement(),
      workloads: defaultWorkloadsPlacement(),
    });
  });

  it('fills only the missing part', () => {
    const infra = { nodeSelector: { role: 'infra' } };
    const workloads = { tolerations: [{ operator: 'Exists' }] };
    expect(fillPlacementConfigurationDefaults({ infra })).toEqual({
      infra,
      workloads: defaultWorkloadsPlacement(),
    });
    expect(fillPlacementConfigurationDefaults({ workloads })).toEqual({
      infra: defaultInfraPlacement(),
      workloads,
    });
  });

  it('prefers control-plane nodes for infra and targets Linux nodes for workloads', () => {
    const prefs =
      defaultInfraPlacement().affinity?.nodeAffinity?.preferredDuringSchedulingIgnoredDuringExecution;
    expect(prefs?.map((p) => [p.weight, p.preference.matchExpressions?.[0]?.key])).toEqual([
      [10, 'node-role.kubernetes.io/control-plane'],
      [1, 'node-role.kubernetes.io/master'],
    ]);
    expect(defaultWorkloadsPlacement().tolerations).toEqual([
      { key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' },
    ]);
  });
});
