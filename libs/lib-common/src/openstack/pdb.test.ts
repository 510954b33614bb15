import { describe, expect, it } from 'vitest';
import { buildPodDisruptionBudget } from './pdb.js';

describe('PodDisruptionBudget of an API Deployment', () => {
  const input = { name: 'keystone', namespace: 'openstack', selector: { service: 'keystone' } };

  it('allows one pod down at a time when there are several replicas', () => {
    expect(buildPodDisruptionBudget({ ...input, replicas: 3 })).toEqual({
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name: 'keystone', namespace: 'openstack', labels: { service: 'keystone' } },
      spec: { maxUnavailable: 1, selector: { matchLabels: { service: 'keystone' } } },
    });
  });

  it('is not wanted for one replica or none (it would block every drain)', () => {
    expect(buildPodDisruptionBudget({ ...input, replicas: 1 })).toBeUndefined();
    expect(buildPodDisruptionBudget({ ...input, replicas: 0 })).toBeUndefined();
  });
});
