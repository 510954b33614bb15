import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../client/types.js';
import {
  apiEndpointURL,
  applyServiceOverride,
  buildEndpointService,
  buildService,
  loadBalancerState,
  metalLBAnnotations,
  type RoutedOverrideSpec,
} from './service.js';

const labels = { service: 'keystone', owner: 'keystone' };
const endpoint = (e: 'public' | 'internal', override?: RoutedOverrideSpec) =>
  buildEndpointService({
    name: 'keystone',
    endpoint: e,
    namespace: 'openstack',
    labels,
    selector: labels,
    port: 5000,
    override,
  });

describe('buildEndpointService', () => {
  it('public ClusterIP: named <name>-public, endpoint label/annotation, ingress_create true, port named like the service', () => {
    expect(endpoint('public')).toEqual({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: {
        name: 'keystone-public',
        namespace: 'openstack',
        labels: { ...labels, endpoint: 'public' },
        annotations: { endpoint: 'public', 'core.openstack.org/ingress_create': 'true' },
      },
      spec: {
        type: 'ClusterIP',
        selector: labels,
        ports: [{ name: 'keystone-public', port: 5000, protocol: 'TCP' }],
      },
    });
  });

  it('internal: ingress_create false', () => {
    expect(endpoint('internal').metadata.annotations).toEqual({
      endpoint: 'internal',
      'core.openstack.org/ingress_create': 'false',
    });
  });

  it('LoadBalancer override: dnsmasq host name, MetalLB annotations and labels from the override win', () => {
    const svc = endpoint('internal', {
      metadata: {
        labels: { service: 'overridden', extra: 'x' },
        annotations: metalLBAnnotations({ addressPool: 'internalapi', loadBalancerIPs: ['172.17.0.80'] }),
      },
      spec: { type: 'LoadBalancer', externalTrafficPolicy: 'Local' },
    });
    expect(svc.metadata.labels).toEqual({
      service: 'overridden',
      owner: 'keystone',
      endpoint: 'internal',
      extra: 'x',
    });
    expect(svc.metadata.annotations).toEqual({
      endpoint: 'internal',
      'core.openstack.org/ingress_create': 'false',
      'dnsmasq.network.openstack.org/hostname': 'keystone-internal.openstack.svc',
      'metallb.universe.tf/address-pool': 'internalapi',
      'metallb.universe.tf/allow-shared-ip': 'internalapi',
      'metallb.universe.tf/loadBalancerIPs': '172.17.0.80',
    });
    expect(svc['spec']).toMatchObject({
      type: 'LoadBalancer',
      externalTrafficPolicy: 'Local',
      selector: labels,
    });
  });

  it('public LoadBalancer is not marked for ingress', () => {
    expect(
      endpoint('public', { spec: { type: 'LoadBalancer' } }).metadata.annotations?.[
        'core.openstack.org/ingress_create'
      ],
    ).toBe('false');
  });
});

describe('applyServiceOverride', () => {
  const base = buildService({
    name: 's',
    namespace: 'n',
    selector: { a: '1' },
    ports: [{ name: 's', port: 80 }],
    labels: { l: '1' },
    annotations: { x: 'gen' },
  });

  it.each<[string, RoutedOverrideSpec | undefined, Record<string, unknown>]>([
    [
      'no override leaves it alone',
      undefined,
      { labels: { l: '1' }, annotations: { x: 'gen' }, spec: { type: 'ClusterIP' } },
    ],
    [
      'annotation override wins, others kept',
      { metadata: { annotations: { x: 'user', y: '2' } } },
      { annotations: { x: 'user', y: '2' } },
    ],
    ['label override merges', { metadata: { labels: { m: '2' } } }, { labels: { l: '1', m: '2' } }],
    [
      'spec scalars replace, ports kept',
      { spec: { type: 'NodePort', sessionAffinity: 'ClientIP' } },
      {
        spec: {
          type: 'NodePort',
          sessionAffinity: 'ClientIP',
          ports: [{ name: 's', port: 80, protocol: 'TCP' }],
        },
      },
    ],
    [
      'spec arrays replace',
      { spec: { loadBalancerSourceRanges: ['10.0.0.0/8'] } },
      { spec: { loadBalancerSourceRanges: ['10.0.0.0/8'] } },
    ],
    [
      'nested spec objects merge',
      { spec: { sessionAffinityConfig: { clientIP: { timeoutSeconds: 5 } } } },
      { spec: { sessionAffinityConfig: { clientIP: { timeoutSeconds: 5 } } } },
    ],
  ])('%s', (_n, override, expected) => {
    const out = applyServiceOverride(base, override);
    const view = { labels: out.metadata.labels, annotations: out.metadata.annotations, spec: out['spec'] };
    expect(view).toMatchObject(expected);
  });
});

describe('loadBalancerState', () => {
  const lb = (ingress?: object[]): KubeObject => ({
    metadata: { name: 'keystone-internal' },
    spec: { type: 'LoadBalancer' },
    status: { loadBalancer: ingress ? { ingress } : {} },
  });

  it.each<[string, KubeObject, ReturnType<typeof loadBalancerState>]>([
    [
      'ClusterIP is never pending',
      { metadata: { name: 'x' }, spec: { type: 'ClusterIP' } },
      { pending: false, addresses: [] },
    ],
    [
      'LB without ingress is pending',
      lb(),
      { pending: true, message: 'keystone-internal LoadBalancer IP still pending' },
    ],
    [
      'LB with empty ingress is pending',
      lb([]),
      { pending: true, message: 'keystone-internal LoadBalancer IP still pending' },
    ],
    [
      'LB with IP / hostname',
      lb([{ ip: '172.17.0.80' }, { hostname: 'lb.example' }]),
      { pending: false, addresses: ['172.17.0.80', 'lb.example'] },
    ],
  ])('%s', (_n, svc, expected) => {
    expect(loadBalancerState(svc)).toEqual(expected);
  });
});

describe('apiEndpointURL', () => {
  const svc = (port: number) =>
    buildService({
      name: 'keystone-internal',
      namespace: 'openstack',
      selector: {},
      ports: [
        { name: 'other', port: 1 },
        { name: 'keystone-internal', port },
      ],
    });

  it.each<[string, Parameters<typeof apiEndpointURL>[0], string]>([
    ['http with port', { service: svc(5000) }, 'http://keystone-internal.openstack.svc:5000'],
    [
      'https with port',
      { service: svc(5000), protocol: 'https' },
      'https://keystone-internal.openstack.svc:5000',
    ],
    ['http on 80 leaves the port out', { service: svc(80) }, 'http://keystone-internal.openstack.svc'],
    [
      'https on 443 leaves the port out',
      { service: svc(443), protocol: 'https' },
      'https://keystone-internal.openstack.svc',
    ],
    [
      'https on 80 keeps it',
      { service: svc(80), protocol: 'https' },
      'https://keystone-internal.openstack.svc:80',
    ],
    ['no scheme', { service: svc(8778), protocol: 'none' }, 'keystone-internal.openstack.svc:8778'],
    [
      'with a path',
      { service: svc(8774), path: '/v2.1' },
      'http://keystone-internal.openstack.svc:8774/v2.1',
    ],
    [
      'endpointURL override verbatim',
      { service: svc(5000), endpointURL: 'https://keystone.example.com' },
      'https://keystone.example.com',
    ],
    [
      'endpointURL plus path',
      { service: svc(5000), endpointURL: 'https://api.example.com/', path: 'v3' },
      'https://api.example.com/v3',
    ],
  ])('%s', (_n, input, url) => {
    expect(apiEndpointURL(input)).toBe(url);
  });

  it('falls back to the first port when none is named like the service', () => {
    const s = buildService({ name: 'p', namespace: 'n', selector: {}, ports: [{ name: 'api', port: 8778 }] });
    expect(apiEndpointURL({ service: s })).toBe('http://p.n.svc:8778');
  });
});

describe('metalLBAnnotations', () => {
  it('shares the IP under the pool name unless a key is given, and leaves out IPs when none', () => {
    expect(metalLBAnnotations({ addressPool: 'ctlplane', sharedIPKey: 'k' })).toEqual({
      'metallb.universe.tf/address-pool': 'ctlplane',
      'metallb.universe.tf/allow-shared-ip': 'k',
    });
  });
});
