import { ROLE_CONTROL_PLANE, ROLE_WORKER } from '../api/constants.js';
import type { SIPClusterServices } from '../api/services.js';
import type { RoleNeeds } from '../hostdata/host-data.js';
import type { DesiredObject } from '../resources/objects.js';
import { renderAuth } from './auth.js';
import type { RenderContext } from './context.js';
import { renderJumpHost } from './jumphost.js';
import { renderControlPlaneLoadBalancer, renderWorkerLoadBalancer } from './loadbalancer.js';

/**
 * Every object of every service, in upstream's order (control-plane load balancer, worker load
 * balancer, jump host) followed by Dex. Throws ServiceInputError on invalid input.
 */
export function renderServices(
  ctx: RenderContext,
  services: SIPClusterServices,
  privateKeyNames: readonly string[],
): DesiredObject[] {
  return [
    ...(services.loadBalancerControlPlane ?? []).flatMap((s) => renderControlPlaneLoadBalancer(ctx, s)),
    ...(services.loadBalancerWorker ?? []).flatMap((s) => renderWorkerLoadBalancer(ctx, s)),
    ...(services.jumpHost ?? []).flatMap((s) => renderJumpHost(ctx, s, privateKeyNames)),
    ...(services.auth ?? []).flatMap((s) => renderAuth(ctx, s)),
  ];
}

/**
 * What the services need from a role's hosts: an IP on each interface a service of that role
 * uses (the role's load balancer, and the jump host, which reaches every host), and BMC access
 * when there is a jump host (its `host reboot`).
 */
export function roleNeeds(services: SIPClusterServices, role: string): RoleNeeds {
  const interfaces = new Set<string | undefined>();
  if (role === ROLE_CONTROL_PLANE)
    for (const s of services.loadBalancerControlPlane ?? []) interfaces.add(s.nodeInterfaceId || undefined);
  if (role === ROLE_WORKER)
    for (const s of services.loadBalancerWorker ?? []) interfaces.add(s.nodeInterfaceId || undefined);
  for (const s of services.jumpHost ?? []) interfaces.add(s.nodeInterfaceId || undefined);
  return { interfaces, bmc: (services.jumpHost ?? []).length > 0 };
}
