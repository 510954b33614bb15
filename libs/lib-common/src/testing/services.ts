import { Kinds } from '../client/kinds.js';
import type { KubeClient } from '../client/types.js';

/** Gives LoadBalancer Service `name` the address `ip` in its status (what MetalLB would do). */
export async function setLoadBalancerIP(client: KubeClient, namespace: string, name: string, ip: string) {
  await client.patch(
    Kinds.Service,
    { name, namespace },
    { status: { loadBalancer: { ingress: [{ ip }] } } },
    'merge',
    { subresource: 'status' },
  );
}
