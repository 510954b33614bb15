import { describe, expect, it } from 'vitest';
import { Kinds } from '../client/kinds.js';
import { isDeploymentReady } from '../openstack/deployment.js';
import { simulateControllerManager } from './controller-manager.js';
import { FakeKubeClient } from './fake.js';

describe('simulateControllerManager', () => {
  it('completes Jobs and rolls Deployments out at their current generation', async () => {
    const fake = new FakeKubeClient();
    fake.seed(Kinds.Job, { metadata: { name: 'db-create', namespace: 'ns' }, spec: {} });
    fake.seed(Kinds.Deployment, { metadata: { name: 'api', namespace: 'ns' }, spec: { replicas: 3 } });
    const ref = { namespace: 'ns', name: 'api' };
    await fake.patch(Kinds.Deployment, ref, { spec: { replicas: 2 } }, 'merge');
    expect(isDeploymentReady(fake.peek(Kinds.Deployment, ref)!)).toBe(false);
    await simulateControllerManager(fake);
    expect(fake.peek(Kinds.Job, { namespace: 'ns', name: 'db-create' })?.['status']).toEqual({
      succeeded: 1,
    });
    const deployment = fake.peek(Kinds.Deployment, ref)!;
    expect(deployment['status']).toEqual({
      observedGeneration: 2,
      replicas: 2,
      readyReplicas: 2,
      availableReplicas: 2,
      updatedReplicas: 2,
    });
    expect(isDeploymentReady(deployment)).toBe(true);
  });
});
