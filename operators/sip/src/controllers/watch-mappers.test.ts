import { describe, expect, it } from 'vitest';
import { LABEL_CLUSTER_NAME, LABEL_CLUSTER_NAMESPACE, LABEL_NODE_TYPE } from '../api/constants.js';
import type { BareMetalHost, SIPCluster } from '../api/kinds.js';
import type { SIPClusterServices } from '../api/services.js';
import { clustersForHost, clustersForSecret, serviceSecretNames } from './watch-mappers.js';

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

  it('a Secret goes to the clusters whose services name it, and to those its host concerns', () => {
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
    const secret = (namespace: string, name: string) => ({ metadata: { namespace, name } });
    expect(names(clustersForSecret(secret('t', 'keys'), [withKeys, ...clusters], []))).toEqual(['jump']);
    // A Secret of that name in another namespace is not the one the services use.
    expect(clustersForSecret(secret('m', 'keys'), [withKeys], [])).toEqual([]);
    // A host's networkData and BMC Secrets follow the host.
    const hosts = [host('h1', 'ready-a')];
    expect(names(clustersForSecret(secret('m', 'h1-nd'), clusters, hosts))).toEqual(['pending', 'ready-a']);
    expect(names(clustersForSecret(secret('m', 'h1-bmc'), clusters, hosts))).toEqual(['pending', 'ready-a']);
    expect(clustersForSecret(secret('m', 'other'), clusters, hosts)).toEqual([]);
  });
});
