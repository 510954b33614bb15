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
  DRAIN_SECONDS,
  nodePort,
  nodePortService,
  nodeSelectorOf,
  serviceDeployment,
  tcpPort,
} from '../resources/objects.js';
import { renderGoTemplate, TemplateError } from '../templates/go-template.js';
import { type Backend, type HealthCheck, renderHaproxyConfig } from '../templates/haproxy.js';
import type { RenderContext, SiteTemplate } from './context.js';
import { ServiceInputError } from './errors.js';

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

/**
 * A rollout (a host added or removed changes the config) must not cut the tenant's established
 * connections: the old pod first leaves the Service's endpoints, then HAProxy stops listening and
 * finishes the connections it holds (soft stop), up to the grace period.
 */
const HAPROXY_DRAIN = 'sleep 2; kill -USR1 1; while kill -0 1 2>/dev/null; do sleep 1; done';

/**
 * A site template run with the data upstream gives it: `ContainerPorts` (the pod's ports as
 * Kubernetes ContainerPorts: Name, HostPort, ContainerPort, Protocol, HostIP; only Name and
 * ContainerPort set) and `Servers` (IP, Name of each backend host).
 */
function renderSiteTemplate(
  template: SiteTemplate,
  ports: LoadBalancerInput['ports'],
  backends: Backend[],
): string {
  const data = {
    ContainerPorts: ports.map((p) => ({
      Name: p.name,
      HostPort: 0,
      ContainerPort: p.port,
      Protocol: '',
      HostIP: '',
    })),
    Servers: backends.map((b) => ({ IP: b.ip, Name: b.name })),
  };
  try {
    return renderGoTemplate(template.text, data);
  } catch (e) {
    if (e instanceof TemplateError) throw new ServiceInputError(`${template.source}: ${e.message}`);
    throw e;
  }
}

function renderLoadBalancer(ctx: RenderContext, input: LoadBalancerInput): DesiredObject[] {
  const name = loadBalancerName(input.role, ctx.cluster.name);
  const { namespace } = ctx.cluster;
  const labels = instanceLabels('loadbalancer', 'haproxy', name);
  const backends = backendsOf(ctx, input.role, input.service.nodeInterfaceId);
  const template = ctx.loadBalancerTemplates?.get(input.role);
  const config = template
    ? renderSiteTemplate(template, input.ports, backends)
    : renderHaproxyConfig({
        owner: `${namespace}/${ctx.cluster.name}`,
        ports: input.ports.map(({ name: portName, port }) => ({ name: portName, port })),
        backends,
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
        lifecycle: { preStop: { exec: { command: ['/bin/sh', '-c', HAPROXY_DRAIN] } } },
        securityContext: { allowPrivilegeEscalation: false },
        volumeMounts: [{ name: 'haproxy-config', mountPath: HAPROXY_CONFIG_DIR, readOnly: true }],
      },
    ],
    volumes: [{ name: 'haproxy-config', secret: { secretName: name } }],
    terminationGracePeriodSeconds: DRAIN_SECONDS,
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
