import { describe, expect, it } from 'vitest';
import { LABEL_CLUSTER_NAME, LABEL_CLUSTER_NAMESPACE, LABEL_NODE_TYPE } from '../api/constants.js';
import type { BareMetalHost, SIPCluster } from '../api/kinds.js';
import type { SIPClusterServices } from '../api/services.js';
import { clustersForHost, secretRefsOfHosts, serviceSecretNames } from './watch-mappers.js';

const cluster = (
  name: string,
  opts: { ready?: boolean; hosts?: string[]; services?: SIPClusterServices } = {},
): SIPCluster => ({
  metadata: { namespace: 't', name },
  spec: { services: opts.services ?? {} },
  status: {
    conditions: [
      {
        type: 'Ready',
        status: opts.ready ? 'True' : 'False',
        lastTransitionTime: '2026-01-01T00:00:00Z',
      },
    ],
    nodes: { ControlPlane: { hosts: opts.hosts ?? [], scheduled: 0, requested: 0 } },
  },
});

const host = (name: string, claimedBy?: string): BareMetalHost => ({
  metadata: {
    namespace: 'm',
    name,
    labels: claimedBy
      ? { [LABEL_CLUSTER_NAMESPACE]: 't', [LABEL_CLUSTER_NAME]: claimedBy, [LABEL_NODE_TYPE]: 'Worker' }
      : {},
  },
  spec: {
    networkData: { name: `${name}-nd` },
    bmc: { address: 'ipmi://1.2.3.4', credentialsName: `${name}-bmc` },
  },
});

const names = (refs: { name: string }[]) => refs.map((r) => r.name).sort();

describe('watch mappers', () => {
  const clusters = [
    cluster('ready-a', { ready: true }),
    cluster('ready-b', { ready: true, hosts: ['m/h2'] }),
    cluster('pending'),
  ];

  it('a host goes to the cluster its labels name, the one listing it, and every cluster not Ready', () => {
    expect(names(clustersForHost(host('h1', 'ready-a'), clusters))).toEqual(['pending', 'ready-a']);
    // Labels just removed: the status still lists it.
    expect(names(clustersForHost(host('h2'), clusters))).toEqual(['pending', 'ready-b']);
    expect(names(clustersForHost(host('h3'), clusters))).toEqual(['pending']);
  });

  it('a cluster watches the Secrets its services name and those of the hosts it concerns', () => {
    const withKeys = cluster('jump', {
      ready: true,
      services: {
        jumpHost: [{ nodePort: 30000, nodeSSHPrivateKeys: 'keys' }],
        auth: [
          {
            nodePort: 30001,
            tlsSecret: 'tls',
            envFromSecret: 'env',
            staticClients: [{ id: 'k', redirectURIs: ['x'], secretRef: { name: 'client', key: 's' } }],
            connectors: [{ type: 'ldap', id: 'l', name: 'L' }],
          },
        ],
      },
    });
    expect([...serviceSecretNames(withKeys)].sort()).toEqual(['client', 'env', 'keys', 'tls']);
    // A host's networkData and BMC Secrets are watched for the clusters the host concerns.
    const hosts = [host('h1', 'ready-a'), host('h2')];
    const refs = (sip: SIPCluster) => secretRefsOfHosts(sip, hosts).map((r) => `${r.namespace}/${r.name}`);
    expect(refs(clusters[0]!)).toEqual(['m/h1-nd', 'm/h1-bmc']);
    expect(refs(clusters[2]!)).toEqual(['m/h1-nd', 'm/h1-bmc', 'm/h2-nd', 'm/h2-bmc']);
    expect(refs(withKeys)).toEqual([]);
    // A Ready cluster whose role selects a free host watches that host's Secrets (a scale-up takes it);
    // a host another cluster holds stays out.
    const growing = {
      ...clusters[0]!,
      spec: { ...clusters[0]!.spec, nodes: { Worker: { count: { active: 2, standby: 0 } } } },
    } as SIPCluster;
    expect(secretRefsOfHosts(growing, [...hosts, host('h3', 'other')]).map((r) => r.name)).toEqual([
      'h1-nd',
      'h1-bmc',
      'h2-nd',
      'h2-bmc',
    ]);
  });
});
