import { execFileSync } from 'node:child_process';
import { ApiError, type KubeObject, type RestKubeClient } from '@stackops/lib-common/client';
import { createTestNamespace, type TestNamespace } from '@stackops/lib-common/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BareMetalHostKind, SIPClusterKind } from '../src/api/kinds.js';
import { deleteNamespace, installChartCrds, testClient, tool } from './support.js';

const KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGb8m3Ue0MYdKYsK6mXoWqHcD7r9R3ls6dB1m0rA6q4x ops@example';

let client: RestKubeClient;
let testNs: TestNamespace;
let ns: string;

beforeAll(async () => {
  client = testClient();
  await installChartCrds(client);
  testNs = await createTestNamespace(client, 'sip-schema');
  ns = testNs.name;
});
afterAll(async () => {
  await deleteNamespace(client, testNs);
  client.close();
});

type Json = Record<string, unknown>;

/** A valid SIPCluster with every service; each case below breaks one rule. */
function valid(): Json {
  return {
    apiVersion: 'airship.airshipit.org/v1',
    kind: 'SIPCluster',
    metadata: { name: 'tenant', namespace: ns },
    spec: {
      nodes: {
        ControlPlane: {
          labelSelector: { matchExpressions: [{ key: 'flavor', operator: 'In', values: ['cp'] }] },
          topologyKey: 'rack',
          count: { active: 1, standby: 1 },
        },
        Worker: { labelSelector: { matchLabels: { flavor: 'worker' } }, count: { active: 2, standby: 0 } },
      },
      services: {
        loadBalancerControlPlane: [{ nodePort: 30001, nodeInterfaceId: 'oam-ipv4' }],
        loadBalancerWorker: [{ nodePortRange: { start: 30002, end: 30010 } }],
        jumpHost: [{ nodePort: 30000, nodeSSHPrivateKeys: 'keys', sshAuthorizedKeys: [KEY] }],
        auth: [
          {
            nodePort: 30556,
            issuer: 'https://dex.example.org/dex',
            staticClients: [{ id: 'k8s', redirectURIs: ['http://localhost:8000'], public: true }],
            connectors: [{ type: 'ldap', id: 'ldap', name: 'LDAP', config: { host: 'ldap:636' } }],
          },
        ],
      },
    },
  };
}

/** Applies a change to a copy of the valid object (a JSON path of keys and indexes). */
function withChange(path: (string | number)[], value: unknown): Json {
  const obj = valid();
  let at: Record<string | number, unknown> = obj;
  for (const key of path.slice(0, -1)) at = at[key] as Record<string | number, unknown>;
  const last = path[path.length - 1]!;
  if (value === undefined) delete at[last];
  else at[last] = value;
  return obj;
}

async function rejection(obj: Json): Promise<string> {
  try {
    await client.create(SIPClusterKind, {
      ...(obj as KubeObject),
      metadata: { ...(obj['metadata'] as Json), name: `t${Date.now()}` },
    });
  } catch (e) {
    if (e instanceof ApiError && e.code === 422) return e.statusMessage;
    throw e;
  }
  throw new Error('the API server accepted an invalid SIPCluster');
}

const svc = ['spec', 'services'];

describe('SIPCluster schema', () => {
  it('accepts the valid example, and applies defaults', async () => {
    const created = await client.create(SIPClusterKind, valid() as KubeObject & { spec: Json });
    expect(created.spec['services']).toMatchObject({ jumpHost: [{ nodePort: 30000 }] });
    await client.delete(SIPClusterKind, { namespace: ns, name: 'tenant' });
  });

  it.each<[string, (string | number)[], unknown, string]>([
    [
      'an unknown role',
      ['spec', 'nodes'],
      { Master: { count: { active: 1, standby: 0 } } },
      'nodes: roles must be ControlPlane or Worker',
    ],
    [
      'a role without count',
      ['spec', 'nodes', 'Worker', 'count'],
      undefined,
      'spec.nodes.Worker.count: Required value',
    ],
    [
      'a negative count',
      ['spec', 'nodes', 'Worker', 'count', 'active'],
      -1,
      'should be greater than or equal to 0',
    ],
    [
      'In without values',
      ['spec', 'nodes', 'ControlPlane', 'labelSelector', 'matchExpressions', 0, 'values'],
      undefined,
      'values must be non-empty for operator In and NotIn',
    ],
    [
      'Exists with values',
      ['spec', 'nodes', 'ControlPlane', 'labelSelector', 'matchExpressions', 0],
      { key: 'flavor', operator: 'Exists', values: ['x'] },
      'empty for Exists and DoesNotExist',
    ],
    [
      'an unknown operator',
      ['spec', 'nodes', 'ControlPlane', 'labelSelector', 'matchExpressions', 0, 'operator'],
      'Equals',
      'Unsupported value: "Equals"',
    ],
    ['no services', [...svc], undefined, 'spec.services: Required value'],
    [
      'two control-plane load balancers',
      [...svc, 'loadBalancerControlPlane'],
      [{ nodePort: 30001 }, { nodePort: 30020 }],
      'spec.services.loadBalancerControlPlane: Too many: 2: must have at most 1 item',
    ],
    [
      'a load balancer without nodePort',
      [...svc, 'loadBalancerControlPlane', 0, 'nodePort'],
      undefined,
      'nodePort: Required value',
    ],
    [
      'a nodePort above 65535',
      [...svc, 'loadBalancerControlPlane', 0, 'nodePort'],
      70000,
      'should be less than or equal to 65535',
    ],
    [
      'a port range ending before it starts',
      [...svc, 'loadBalancerWorker', 0, 'nodePortRange'],
      { start: 30010, end: 30002 },
      'nodePortRange: end must be greater than or equal to start',
    ],
    [
      'a port range too large',
      [...svc, 'loadBalancerWorker', 0, 'nodePortRange'],
      { start: 20000, end: 30000 },
      'nodePortRange: at most 256 ports',
    ],
    [
      'a jump host without nodeSSHPrivateKeys',
      [...svc, 'jumpHost', 0, 'nodeSSHPrivateKeys'],
      undefined,
      'nodeSSHPrivateKeys: Required value',
    ],
    [
      'an authorized key that is not one',
      [...svc, 'jumpHost', 0, 'sshAuthorizedKeys'],
      ['not a key'],
      'sshAuthorizedKeys: each entry must be an OpenSSH authorized_keys line',
    ],
    [
      'the jump host on the load balancer nodePort',
      [...svc, 'jumpHost', 0, 'nodePort'],
      30001,
      'services: loadBalancerControlPlane and jumpHost must use different nodePorts',
    ],
    [
      'the jump host inside the worker range',
      [...svc, 'jumpHost', 0, 'nodePort'],
      30005,
      'services: jumpHost nodePort must lie outside loadBalancerWorker nodePortRange',
    ],
    [
      'Dex on the jump host port',
      [...svc, 'auth', 0, 'nodePort'],
      30000,
      'services: jumpHost and auth must use different nodePorts',
    ],
    ['Dex without connectors', [...svc, 'auth', 0, 'connectors'], undefined, 'connectors: Required value'],
    [
      'a Dex client both public and with a secret',
      [...svc, 'auth', 0, 'staticClients', 0, 'secretRef'],
      { name: 'client' },
      'a client is either public or has a secretRef',
    ],
    ['an issuer that is not a URL', [...svc, 'auth', 0, 'issuer'], 'dex.example.org', 'should match'],
    [
      'a clusterIP (not supported yet)',
      [...svc, 'jumpHost', 0, 'clusterIP'],
      '10.96.0.10',
      'clusterIP is not supported yet',
    ],
    [
      'a name too long for the service names',
      ['metadata', 'name'],
      'a-very-long-tenant-cluster-name-that-overflows',
      'metadata.name: a lowercase DNS label of at most 37 characters',
    ],
  ])('rejects %s', async (_, path, value, message) => {
    const obj = withChange(path, value);
    const msg =
      path[0] === 'metadata'
        ? await client.create(SIPClusterKind, obj as KubeObject).then(
            () => Promise.reject(new Error('accepted')),
            (e: unknown) => (e instanceof ApiError ? e.statusMessage : Promise.reject(e)),
          )
        : await rejection(obj);
    expect(msg).toContain(message);
  });
});

describe('upstream manifests', () => {
  /** airship SIP's own sample (config/samples), as users have it. */
  const upstreamSample = (namespace: string) => `
apiVersion: airship.airshipit.org/v1
kind: SIPCluster
metadata:
  name: sipcluster-system
  namespace: ${namespace}
  finalizers:
    - sip.airship.airshipit.org/finalizer
spec:
  nodes:
    ControlPlane:
      labelSelector:
        matchLabels:
          vino.airshipit.org/flavor: control-plane
      topologyKey: vino.airshipit.org/rack
      count:
        active: 1
        standby: 1
    Worker:
      labelSelector:
        matchLabels:
          vino.airshipit.org/flavor: worker
      topologyKey: vino.airshipit.org/host
      count:
        active: 1
        standby: 1
  services:
    jumpHost:
      - image: quay.io/airshipit/jump-host:latest
        nodePort: 30000
        nodeInterfaceId: oam-ipv4
        bmc:
          proxy: false
        sshAuthorizedKeys:
          - ${KEY}
        nodeSSHPrivateKeys: ssh-private-keys
    loadBalancerControlPlane:
      - image: haproxy:2.3.2
        nodePort: 30001
        nodeInterfaceId: oam-ipv4
    loadBalancerWorker:
      - image: haproxy:2.3.2
        nodePortRange:
          start: 30002
          end: 30011
        nodeInterfaceId: oam-ipv4
`;

  const kubectl = (args: string[], input?: string) =>
    execFileSync(tool('kubectl'), args, {
      input,
      encoding: 'utf8',
      env: process.env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });

  it('the upstream sample SIPCluster applies unchanged (kubectl, strict field validation)', async () => {
    const out = kubectl(['apply', '--validate=strict', '-f', '-'], upstreamSample(ns));
    expect(out).toContain('sipcluster.airship.airshipit.org/sipcluster-system created');
    const printed = kubectl(['get', 'sipclusters', '-n', ns, '-o', 'wide']);
    expect(printed.split('\n')[0]).toMatch(/NAME\s+READY\s+REASON\s+CONTROLPLANE\s+WORKERS\s+MESSAGE\s+AGE/);
    await client.patch(
      SIPClusterKind,
      { namespace: ns, name: 'sipcluster-system' },
      { metadata: { finalizers: null } },
      'merge',
    );
  });

  it('a metal3 BareMetalHost keeps fields outside the subset', async () => {
    const bmh = await client.create<KubeObject & { spec: Json }>(BareMetalHostKind, {
      apiVersion: 'metal3.io/v1alpha1',
      kind: 'BareMetalHost',
      metadata: { name: 'rdm9r006o002', namespace: ns },
      spec: {
        online: true,
        bootMode: 'UEFI',
        bmc: {
          address: 'redfish+https://32.68.51.13/redfish/v1/Systems/System.Embedded.1',
          credentialsName: 'bmc',
          disableCertificateVerification: true,
        },
        networkData: { name: 'rdm9r006o002-networkdata', namespace: ns },
        image: { url: 'http://images/ubuntu.qcow2', checksum: 'http://images/ubuntu.qcow2.md5sum' },
      },
    });
    expect(bmh.spec).toMatchObject({ bootMode: 'UEFI', image: { url: 'http://images/ubuntu.qcow2' } });
  });
});
