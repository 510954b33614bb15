import { Kinds } from '@stackops/lib-common/client';
import { CONTROL_PLANE_API_PORT, ROLE_CONTROL_PLANE, ROLE_WORKER } from '../api/constants.js';
import type { LoadBalancerControlPlaneService, LoadBalancerWorkerService } from '../api/services.js';
import { hostIp } from '../hostdata/host-data.js';
import { instanceLabels } from '../resources/labels.js';
import {
  configHash,
  configSecret,
  controlPlaneTolerations,
  type DesiredObject,
  nodePort,
  nodePortService,
  nodeSelectorOf,
  serviceDeployment,
  tcpPort,
} from '../resources/objects.js';
import { type Backend, type HealthCheck, renderHaproxyConfig } from '../templates/haproxy.js';
import type { RenderContext } from './context.js';

const HAPROXY_CONFIG_DIR = '/usr/local/etc/haproxy';

/** `loadbalancer-controlplane-<name>` / `loadbalancer-worker-<name>` (upstream's names). */
const loadBalancerName = (role: string, cluster: string): string =>
  `loadbalancer-${role.toLowerCase()}-${cluster}`;

interface LoadBalancerInput {
  role: string;
  service: LoadBalancerControlPlaneService | LoadBalancerWorkerService;
  /** port = the port on the backends and in the pod; nodePort = where the Service exposes it. */
  ports: { name: string; port: number; nodePort: number }[];
  check: HealthCheck;
}

/** The role's hosts that have an IP on the load balancer's interface, by name. */
function backendsOf(ctx: RenderContext, role: string, iface: string | undefined): Backend[] {
  return (ctx.hostsByRole.get(role) ?? []).flatMap((h) => {
    const ip = hostIp(h, iface);
    return ip ? [{ name: h.host.name, ip }] : [];
  });
}

function renderLoadBalancer(ctx: RenderContext, input: LoadBalancerInput): DesiredObject[] {
  const name = loadBalancerName(input.role, ctx.cluster.name);
  const { namespace } = ctx.cluster;
  const labels = instanceLabels('loadbalancer', 'haproxy', name);
  const config = renderHaproxyConfig({
    owner: `${namespace}/${ctx.cluster.name}`,
    ports: input.ports.map(({ name: portName, port }) => ({ name: portName, port })),
    backends: backendsOf(ctx, input.role, input.service.nodeInterfaceId),
    check: input.check,
  });
  const secret = configSecret(name, namespace, labels, { 'haproxy.cfg': config });
  const deployment = serviceDeployment(name, namespace, labels, configHash(config), {
    ...nodeSelectorOf(input.service.nodeLabels),
    tolerations: controlPlaneTolerations,
    containers: [
      {
        name: 'loadbalancer',
        image: input.service.image || ctx.images.loadBalancer,
        imagePullPolicy: 'IfNotPresent',
        ports: input.ports.map((p) => tcpPort(p.name, p.port)),
        readinessProbe: { tcpSocket: { port: input.ports[0]!.port }, periodSeconds: 10 },
        securityContext: { allowPrivilegeEscalation: false },
        volumeMounts: [{ name: 'haproxy-config', mountPath: HAPROXY_CONFIG_DIR, readOnly: true }],
      },
    ],
    volumes: [{ name: 'haproxy-config', secret: { secretName: name } }],
  });
  const service = nodePortService(
    name,
    namespace,
    labels,
    input.ports.map((p) => nodePort(p.name, p.port, p.nodePort)),
  );
  return [
    { kind: Kinds.Secret, object: secret },
    { kind: Kinds.Deployment, object: deployment },
    { kind: Kinds.Service, object: service },
  ];
}

/** The tenant API load balancer: port 6443 on the nodePort, to 6443 on every ControlPlane host, checked on /readyz. */
export function renderControlPlaneLoadBalancer(
  ctx: RenderContext,
  service: LoadBalancerControlPlaneService,
): DesiredObject[] {
  return renderLoadBalancer(ctx, {
    role: ROLE_CONTROL_PLANE,
    service,
    ports: [{ name: 'http', port: CONTROL_PLANE_API_PORT, nodePort: service.nodePort }],
    check: 'apiserver',
  });
}

/** The worker load balancer: every port of nodePortRange, as itself, to the same port on every Worker host. */
export function renderWorkerLoadBalancer(
  ctx: RenderContext,
  service: LoadBalancerWorkerService,
): DesiredObject[] {
  const { start, end } = service.nodePortRange;
  const ports = Array.from({ length: end - start + 1 }, (_, i) => start + i).map((p) => ({
    name: `port-${p}`,
    port: p,
    nodePort: p,
  }));
  return renderLoadBalancer(ctx, { role: ROLE_WORKER, service, ports, check: 'tcp' });
}
