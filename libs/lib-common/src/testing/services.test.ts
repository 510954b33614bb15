import { describe, expect, it } from 'vitest';
import { Kinds } from '../client/kinds.js';
import { FakeKubeClient } from './fake.js';
import { setLoadBalancerIP } from './services.js';

describe('setLoadBalancerIP', () => {
  it("writes the address into the Service's status", async () => {
    const fake = new FakeKubeClient();
    fake.seed(Kinds.Service, { metadata: { name: 'lb', namespace: 'ns' }, spec: { type: 'LoadBalancer' } });
    await setLoadBalancerIP(fake, 'ns', 'lb', '10.0.0.9');
    expect(fake.peek(Kinds.Service, { namespace: 'ns', name: 'lb' })?.['status']).toEqual({
      loadBalancer: { ingress: [{ ip: '10.0.0.9' }] },
    });
  });
});
