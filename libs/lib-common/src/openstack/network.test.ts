import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../client/types.js';
import { Conditions } from '../conditions/conditions.js';
import {
  markNetworkAttachmentsCondition,
  NETWORK_STATUS_ANNOTATION,
  type NetworkAttachmentDefinition,
  networksAnnotation,
  parseNetworkStatus,
  verifyNetworkStatus,
} from './network.js';

const nad = (name: string, config?: object | string): NetworkAttachmentDefinition => ({
  metadata: { name, namespace: 'openstack' },
  spec: config === undefined ? {} : { config: typeof config === 'string' ? config : JSON.stringify(config) },
});

describe('networksAnnotation', () => {
  it('lists the NADs with a 15-character interface name and the IPAM gateway as default route', () => {
    const a = networksAnnotation([
      nad('internalapi', { cniVersion: '0.3.1', ipam: { type: 'whereabouts', range: '172.17.0.0/24' } }),
      nad('a-very-long-network-name', { ipam: { gateway: '10.0.0.1' } }),
    ]);
    expect(JSON.parse(a['k8s.v1.cni.cncf.io/networks'] ?? '')).toEqual([
      { name: 'internalapi', namespace: 'openstack', interface: 'internalapi' },
      {
        name: 'a-very-long-network-name',
        namespace: 'openstack',
        interface: 'a-very-long-net',
        'default-route': ['10.0.0.1'],
      },
    ]);
  });

  it('still yields the annotation, with [], for no NADs', () => {
    expect(networksAnnotation([])).toEqual({ 'k8s.v1.cni.cncf.io/networks': '[]' });
  });

  it('rejects a NAD whose config is not JSON, naming it', () => {
    expect(() => networksAnnotation([nad('bad', '{nope')])).toThrow(
      'NetworkAttachmentDefinition openstack/bad',
    );
  });
});

const status = (entries: object[]) => JSON.stringify(entries);
const pod = (annotation?: string): KubeObject => ({
  metadata: {
    name: 'p',
    annotations: annotation === undefined ? {} : { [NETWORK_STATUS_ANNOTATION]: annotation },
  },
});

describe('parseNetworkStatus', () => {
  it.each<[string, string | undefined, number]>([
    ['absent', undefined, 0],
    ['not JSON', '{', 0],
    ['not a list', '{"name":"x"}', 0],
    [
      'entries without a name are skipped',
      status([{ ips: ['1.1.1.1'] }, { name: 'ovn', ips: ['10.0.0.2'] }]),
      1,
    ],
  ])('%s → %i entries', (_n, annotation, count) => {
    expect(parseNetworkStatus(annotation)).toHaveLength(count);
  });
});

describe('verifyNetworkStatus', () => {
  const withNet = (ips: string[]) =>
    pod(
      status([
        { name: 'ovn-kubernetes', ips: ['10.128.0.5'], default: true },
        { name: 'openstack/internalapi', interface: 'internalapi', ips },
      ]),
    );

  it.each<
    [
      string,
      string[],
      KubeObject[],
      number,
      { ready: boolean; networkAttachments: Record<string, string[]>; missing: string[] },
    ]
  >([
    ['nothing requested → ready', [], [pod()], 3, { ready: true, networkAttachments: {}, missing: [] }],
    [
      'every pod has an IP',
      ['internalapi'],
      [withNet(['172.17.0.31']), withNet(['172.17.0.30'])],
      2,
      {
        ready: true,
        networkAttachments: { 'openstack/internalapi': ['172.17.0.30', '172.17.0.31'] },
        missing: [],
      },
    ],
    [
      'one pod still without the network',
      ['internalapi'],
      [withNet(['172.17.0.30']), pod()],
      2,
      {
        ready: false,
        networkAttachments: { 'openstack/internalapi': ['172.17.0.30'] },
        missing: ['internalapi'],
      },
    ],
    [
      'a requested network no pod has',
      ['internalapi', 'storage'],
      [withNet(['172.17.0.30'])],
      1,
      {
        ready: false,
        networkAttachments: { 'openstack/internalapi': ['172.17.0.30'] },
        missing: ['storage'],
      },
    ],
    ['readyCount 0', ['internalapi'], [], 0, { ready: true, networkAttachments: {}, missing: [] }],
  ])('%s', (_n, requested, pods, readyCount, expected) => {
    expect(verifyNetworkStatus({ requested, namespace: 'openstack', pods, readyCount })).toEqual(expected);
  });
});

describe('markNetworkAttachmentsCondition', () => {
  it.each([
    [true, { status: 'True', reason: 'Ready', message: 'NetworkAttachments completed' }],
    [
      false,
      {
        status: 'False',
        reason: 'Error',
        severity: 'Warning',
        message:
          'NetworkAttachments error occurred not all pods have interfaces with ips as configured in NetworkAttachments: [internalapi storage]',
      },
    ],
  ])('ready=%s', (ready, expected) => {
    const conds = markNetworkAttachmentsCondition(new Conditions(), {
      ready,
      networkAttachments: {},
      missing: ready ? [] : ['internalapi', 'storage'],
    });
    expect(conds.get('NetworkAttachmentsReady')).toMatchObject(expected);
  });
});
