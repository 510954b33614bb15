import { isPlainObject } from '../client/json.js';
import type { KubeObject } from '../client/types.js';

type Json = Record<string, unknown>;

/** Upstream's endpoint types; services are made for `internal` and `public`. */
export type EndpointType = 'public' | 'internal' | 'admin';

/** Annotation and label keys upstream sets on API services. */
export const ServiceAnnotations = {
  IngressCreate: 'core.openstack.org/ingress_create',
  IngressTargetPortName: 'core.openstack.org/ingress_target_port_name',
  /** Used both as a label and an annotation key. */
  Endpoint: 'endpoint',
  DnsmasqHostname: 'dnsmasq.network.openstack.org/hostname',
  MetalLBAddressPool: 'metallb.universe.tf/address-pool',
  MetalLBAllowSharedIP: 'metallb.universe.tf/allow-shared-ip',
  MetalLBLoadBalancerIPs: 'metallb.universe.tf/loadBalancerIPs',
} as const;

/** The Service spec fields a user may override (upstream `OverrideServiceSpec`). */
export interface OverrideServiceSpec {
  type?: string;
  sessionAffinity?: string;
  loadBalancerSourceRanges?: string[];
  externalName?: string;
  externalTrafficPolicy?: string;
  sessionAffinityConfig?: Json;
  ipFamilyPolicy?: string;
  loadBalancerClass?: string;
  internalTrafficPolicy?: string;
}

/** One entry of `spec.override.service` (upstream `RoutedOverrideSpec`). */
export interface RoutedOverrideSpec {
  metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: OverrideServiceSpec;
  /** Publish this URL instead of the computed one (used verbatim). */
  endpointURL?: string;
}

export interface ServicePort {
  name: string;
  port: number;
  protocol?: 'TCP' | 'UDP' | 'SCTP';
  targetPort?: number | string;
}

export interface ServiceInput {
  name: string;
  namespace: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  selector: Record<string, string>;
  ports: ServicePort[];
  /** Default ClusterIP. */
  type?: string;
  clusterIP?: string;
  publishNotReadyAddresses?: boolean;
}

/** A Service (v1) as plain JSON (upstream `GenericService`). */
export function buildService(s: ServiceInput): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name: s.name,
      namespace: s.namespace,
      ...(s.labels ? { labels: { ...s.labels } } : {}),
      ...(s.annotations && Object.keys(s.annotations).length > 0
        ? { annotations: { ...s.annotations } }
        : {}),
    },
    spec: {
      type: s.type ?? 'ClusterIP',
      selector: { ...s.selector },
      ports: s.ports.map((p) => ({
        name: p.name,
        port: p.port,
        protocol: p.protocol ?? 'TCP',
        ...(p.targetPort !== undefined ? { targetPort: p.targetPort } : {}),
      })),
      ...(s.clusterIP ? { clusterIP: s.clusterIP } : {}),
      ...(s.publishNotReadyAddresses ? { publishNotReadyAddresses: true } : {}),
    },
  };
}

/** Strategic-merge-like: objects merge key by key, arrays and scalars replace, null removes. */
function mergeInto(base: Json, patch: Json): Json {
  const out: Json = { ...base };
  for (const [k, v] of Object.entries(patch)) {
    if (v === undefined) continue;
    if (v === null) delete out[k];
    else if (isPlainObject(v) && isPlainObject(out[k])) out[k] = mergeInto(out[k] as Json, v);
    else out[k] = v;
  }
  return out;
}

/**
 * Applies an `override.service` entry: its labels and annotations win over the generated ones
 * (other generated keys stay), and its spec is merged onto the generated spec.
 */
export function applyServiceOverride(svc: KubeObject, override: RoutedOverrideSpec | undefined): KubeObject {
  if (!override) return svc;
  const labels = { ...svc.metadata.labels, ...override.metadata?.labels };
  const annotations = { ...svc.metadata.annotations, ...override.metadata?.annotations };
  return {
    ...svc,
    metadata: {
      ...svc.metadata,
      ...(Object.keys(labels).length > 0 ? { labels } : {}),
      ...(Object.keys(annotations).length > 0 ? { annotations } : {}),
    },
    spec: mergeInto(isPlainObject(svc['spec']) ? svc['spec'] : {}, (override.spec ?? {}) as Json),
  };
}

/** `<name>.<namespace>.svc`, the in-cluster host name of a service. */
export function serviceHostname(name: string, namespace: string): string {
  return `${name}.${namespace}.svc`;
}

export interface EndpointServiceInput {
  /** Base name: the service is `<name>-<endpoint>`, e.g. `keystone-public`. */
  name: string;
  endpoint: 'public' | 'internal';
  namespace: string;
  /** Labels of the service (the endpoint label is added). */
  labels: Record<string, string>;
  selector: Record<string, string>;
  port: number;
  targetPort?: number | string;
  override?: RoutedOverrideSpec | undefined;
}

/**
 * An API Service for one endpoint, as keystone and placement make them: named `<name>-<endpoint>`,
 * label and annotation `endpoint: <type>`, one TCP port named like the service, the override
 * merged in. A public ClusterIP service is marked for ingress creation
 * (`core.openstack.org/ingress_create: "true"`); otherwise `"false"`, and a LoadBalancer service
 * gets its DNS host name annotation for dnsmasq.
 */
export function buildEndpointService(e: EndpointServiceInput): KubeObject {
  const svcName = `${e.name}-${e.endpoint}`;
  const type = e.override?.spec?.type ?? 'ClusterIP';
  const annotations: Record<string, string> = { [ServiceAnnotations.Endpoint]: e.endpoint };
  if (e.endpoint === 'public' && type === 'ClusterIP') annotations[ServiceAnnotations.IngressCreate] = 'true';
  else {
    annotations[ServiceAnnotations.IngressCreate] = 'false';
    if (type === 'LoadBalancer')
      annotations[ServiceAnnotations.DnsmasqHostname] = serviceHostname(svcName, e.namespace);
  }
  const svc = buildService({
    name: svcName,
    namespace: e.namespace,
    labels: { ...e.labels, [ServiceAnnotations.Endpoint]: e.endpoint },
    annotations,
    selector: e.selector,
    ports: [
      {
        name: svcName,
        port: e.port,
        protocol: 'TCP',
        ...(e.targetPort !== undefined ? { targetPort: e.targetPort } : {}),
      },
    ],
  });
  return applyServiceOverride(svc, e.override);
}

export interface MetalLBInput {
  addressPool: string;
  /** Fixed addresses to request (comma-joined into the annotation). */
  loadBalancerIPs?: string[];
  /** Sharing key; defaults to the pool name, as upstream does. */
  sharedIPKey?: string;
}

/** The MetalLB annotations of a LoadBalancer service. */
export function metalLBAnnotations(m: MetalLBInput): Record<string, string> {
  const out: Record<string, string> = {
    [ServiceAnnotations.MetalLBAddressPool]: m.addressPool,
    [ServiceAnnotations.MetalLBAllowSharedIP]: m.sharedIPKey || m.addressPool,
  };
  if (m.loadBalancerIPs && m.loadBalancerIPs.length > 0) {
    out[ServiceAnnotations.MetalLBLoadBalancerIPs] = m.loadBalancerIPs.join(',');
  }
  return out;
}

export type LoadBalancerState = { pending: false; addresses: string[] } | { pending: true; message: string };

/**
 * For a LoadBalancer service: pending until `status.loadBalancer.ingress` has an entry (upstream
 * reports `"<name> LoadBalancer IP still pending"`), then its IPs / host names. Other service types
 * are never pending.
 */
export function loadBalancerState(svc: KubeObject): LoadBalancerState {
  const spec = svc['spec'] as { type?: string } | undefined;
  if (spec?.type !== 'LoadBalancer') return { pending: false, addresses: [] };
  const status = svc['status'] as
    | { loadBalancer?: { ingress?: { ip?: string; hostname?: string }[] } }
    | undefined;
  const ingress = status?.loadBalancer?.ingress ?? [];
  if (ingress.length === 0)
    return { pending: true, message: `${svc.metadata.name} LoadBalancer IP still pending` };
  return { pending: false, addresses: ingress.map((i) => i.ip ?? i.hostname ?? '').filter((a) => a !== '') };
}

export interface EndpointURLInput {
  /** The service (built or live): its name, namespace and ports are used. */
  service: KubeObject;
  /** `http` (default), `https`, or `none` for no scheme. */
  protocol?: 'http' | 'https' | 'none';
  path?: string;
  /** The override's `endpointURL`: when set it is the URL (plus `path`). */
  endpointURL?: string | undefined;
}

function joinPath(base: string, path: string | undefined): string {
  if (!path) return base;
  return `${base.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
}

/**
 * The URL an API is reached at (upstream `GetAPIEndpoint`): the override's endpointURL verbatim
 * when given; else `<proto>://<svc>.<ns>.svc:<port>` with the port of the service port named like
 * the service (else the first port), left out for http/80 and https/443.
 */
export function apiEndpointURL(e: EndpointURLInput): string {
  if (e.endpointURL) return joinPath(e.endpointURL, e.path);
  const name = e.service.metadata.name ?? '';
  const ports = ((e.service['spec'] as { ports?: ServicePort[] } | undefined)?.ports ?? []) as ServicePort[];
  const port = (ports.find((p) => p.name === name) ?? ports[0])?.port;
  const protocol = e.protocol ?? 'http';
  const defaultPort = (protocol === 'http' && port === 80) || (protocol === 'https' && port === 443);
  const host = serviceHostname(name, e.service.metadata.namespace ?? '');
  const scheme = protocol === 'none' ? '' : `${protocol}://`;
  return joinPath(`${scheme}${host}${port !== undefined && !defaultPort ? `:${port}` : ''}`, e.path);
}
