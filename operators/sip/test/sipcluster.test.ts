import { Kinds, type KubeObject, type RestKubeClient } from '@stackops/lib-common/client';
import {
  createTestNamespace,
  PAUSED_AS_DOCUMENTED,
  pausedRoundTrip,
  reconcileCount,
  type TestNamespace,
  waitUntil,
} from '@stackops/lib-common/testing';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { BareMetalHostKind, type SIPCluster, SIPClusterKind } from '../src/api/kinds.js';
import type { SIPClusterSpec } from '../src/api/sipcluster.js';
import {
  createHost,
  createSipCluster,
  deleteNamespace,
  fromB64,
  hostOwners,
  installChartCrds,
  putNetworkData,
  type RunningOperator,
  startOperator,
  testClient,
  waitForReady,
} from './support.js';

const RACK = 'example.org/rack';
const SERVER = 'example.org/server';
const ROLE = 'example.org/bmh-label';
const ED25519 =
  'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGb8m3Ue0MYdKYsK6mXoWqHcD7r9R3ls6dB1m0rA6q4x ops@example';

let client: RestKubeClient;
let testNs: TestNamespace;
let ns: string;
let operator: RunningOperator;
/** NodePorts are cluster-wide: each test of this file gets its own block of 20. */
let portBase = 31500;

beforeAll(async () => {
  client = testClient();
  await installChartCrds(client);
});
afterAll(() => client.close());

beforeEach(async () => {
  testNs = await createTestNamespace(client, 'sip');
  ns = testNs.name;
  operator = await startOperator([ns]);
  portBase += 20;
});
afterEach(async () => {
  await operator.stop();
  await deleteNamespace(client, testNs);
});

const cpHost = (name: string, rack: string, ip: string) => ({
  name,
  labels: { [ROLE]: 'control-plane', [RACK]: rack, [SERVER]: `srv-${name}` },
  ips: { 'oam-ipv4': ip, 'pxe-ipv4': ip.replace(/^10\./, '172.') },
});
const workerHost = (name: string, server: string, ip: string) => ({
  name,
  labels: { [ROLE]: 'worker', [RACK]: 'r9', [SERVER]: server },
  ips: { 'oam-ipv4': ip },
});

function fullSpec(cp = { active: 1, standby: 1 }, workers = { active: 2, standby: 0 }): SIPClusterSpec {
  return {
    nodes: {
      ControlPlane: {
        labelSelector: { matchLabels: { [ROLE]: 'control-plane' } },
        topologyKey: RACK,
        count: cp,
      },
      Worker: { labelSelector: { matchLabels: { [ROLE]: 'worker' } }, topologyKey: SERVER, count: workers },
    },
    services: {
      loadBalancerControlPlane: [{ image: 'haproxy:2.3.2', nodePort: portBase, nodeInterfaceId: 'oam-ipv4' }],
      loadBalancerWorker: [
        { nodePortRange: { start: portBase + 1, end: portBase + 3 }, nodeInterfaceId: 'oam-ipv4' },
      ],
      jumpHost: [
        {
          nodePort: portBase + 4,
          nodeInterfaceId: 'oam-ipv4',
          nodeSSHPrivateKeys: 'ssh-private-keys',
          sshAuthorizedKeys: [ED25519],
          bmc: { proxy: false },
        },
      ],
      auth: [
        {
          nodePort: portBase + 5,
          staticClients: [
            {
              id: 'kubernetes',
              redirectURIs: ['http://localhost:8000'],
              secretRef: { name: 'oidc-client', key: 'clientSecret' },
            },
          ],
          connectors: [
            { type: 'ldap', id: 'corp', name: 'Corporate LDAP', config: { host: 'ldap.example.org:636' } },
          ],
        },
      ],
    },
  };
}

async function createFleet(): Promise<void> {
  for (const h of [
    cpHost('cp-a', 'r1', '10.0.0.1'),
    cpHost('cp-b', 'r1', '10.0.0.2'),
    cpHost('cp-c', 'r2', '10.0.0.3'),
    workerHost('w-a', 's1', '10.0.1.1'),
    workerHost('w-b', 's1', '10.0.1.2'),
    workerHost('w-c', 's2', '10.0.1.3'),
    workerHost('w-d', 's3', '10.0.1.4'),
  ]) {
    await createHost(client, ns, h);
  }
  await client.create(Kinds.Secret, {
    metadata: { name: 'ssh-private-keys', namespace: ns },
    data: { id_ed25519: Buffer.from('not a real key').toString('base64') },
  });
  await client.create(Kinds.Secret, {
    metadata: { name: 'oidc-client', namespace: ns },
    data: { clientSecret: Buffer.from('s3cret').toString('base64') },
  });
}

/** `active` control-plane hosts behind a control-plane load balancer on `port`, nothing else. */
const cpOnly = (port: number, active = 1): SIPClusterSpec => ({
  nodes: {
    ControlPlane: {
      labelSelector: { matchLabels: { [ROLE]: 'control-plane' } },
      count: { active, standby: 0 },
    },
  },
  services: { loadBalancerControlPlane: [{ nodePort: port, nodeInterfaceId: 'oam-ipv4' }] },
});

/** The fleet and SIPCluster `tenant` of `fullSpec()`, once Ready. */
async function readyTenant(): Promise<void> {
  await createFleet();
  await createSipCluster(client, ns, 'tenant', fullSpec());
  await waitForReady(client, ns, 'tenant');
}

/** Merge-patches the spec of SIPCluster `tenant`. */
const patchTenant = (spec: Record<string, unknown>) =>
  client.patch(SIPClusterKind, { namespace: ns, name: 'tenant' }, { spec }, 'merge');

async function get<T extends KubeObject>(kind: typeof Kinds.Secret, name: string): Promise<T> {
  const obj = await client.get<T>(kind, { namespace: ns, name });
  if (!obj) throw new Error(`${kind.kind} ${ns}/${name} not found`);
  return obj;
}
const secretValue = async (name: string, key: string) =>
  fromB64((await get<KubeObject & { data?: Record<string, string> }>(Kinds.Secret, name)).data?.[key]);
const serverLines = (cfg: string) => cfg.match(/^\s+server .*$/gm)?.map((l) => l.trim()) ?? [];

type DeploymentLike = KubeObject & {
  spec: { template: { metadata: { annotations?: Record<string, string> }; spec: Record<string, unknown> } };
};
const deployment = (name: string) => get<DeploymentLike>(Kinds.Deployment, name);

describe('SIPCluster', () => {
  it('schedules the hosts, deploys the services, then labels the hosts', async () => {
    await createFleet();
    await createSipCluster(client, ns, 'tenant', fullSpec());
    const ready = await waitForReady(client, ns, 'tenant', 'True', 'ReconciliationSucceeded');
    expect(ready.message).toContain('2 ControlPlane, 2 Worker hosts scheduled');

    const owners = await hostOwners(client, ns);
    expect(owners).toStrictEqual({
      'cp-a': 'tenant',
      'cp-b': undefined,
      'cp-c': 'tenant',
      'w-a': 'tenant',
      'w-b': undefined,
      'w-c': 'tenant',
      'w-d': undefined,
    });
    const sip = await client.get<SIPCluster>(SIPClusterKind, { namespace: ns, name: 'tenant' });
    expect(sip?.metadata.finalizers).toContain('sip.airship.airshipit.org/finalizer');
    expect(sip?.status?.nodes?.['ControlPlane']).toEqual({
      hosts: [`${ns}/cp-a`, `${ns}/cp-c`],
      scheduled: 2,
      requested: 2,
    });

    // HAProxy: the control plane LB forwards to the ControlPlane hosts, the worker LB to the workers.
    const cpCfg = await secretValue('loadbalancer-controlplane-tenant', 'haproxy.cfg');
    expect(serverLines(cpCfg)).toEqual(['server cp-a 10.0.0.1:6443', 'server cp-c 10.0.0.3:6443']);
    const workerCfg = await secretValue('loadbalancer-worker-tenant', 'haproxy.cfg');
    expect(serverLines(workerCfg)).toEqual(
      [portBase + 1, portBase + 2, portBase + 3].flatMap((p) => [
        `server w-a 10.0.1.1:${p}`,
        `server w-c 10.0.1.3:${p}`,
      ]),
    );
    const lbService = await get<KubeObject & { spec: { type: string; ports: { nodePort: number }[] } }>(
      Kinds.Service,
      'loadbalancer-controlplane-tenant',
    );
    expect(lbService.spec).toMatchObject({ type: 'NodePort', ports: [{ port: 6443, nodePort: portBase }] });

    // Jump host: every host in the hosts file and ssh_config, resolvable through hostAliases.
    const hosts = JSON.parse(await secretValue('jumphost-tenant', 'hosts')) as { name: string }[];
    expect(hosts.map((h) => h.name)).toEqual(['cp-a', 'cp-c', 'w-a', 'w-c']);
    const sshConfig = await secretValue('jumphost-tenant', 'ssh_config');
    expect(sshConfig).toContain('IdentityFile /etc/opt/sip/ssh-private-keys/id_ed25519');
    for (const h of ['cp-a', 'cp-c', 'w-a', 'w-c']) expect(sshConfig).toContain(`Host ${h}\n`);
    const jump = await deployment('jumphost-tenant');
    expect(jump.spec.template.spec['hostAliases']).toHaveLength(4);
    const cm = await get<KubeObject & { data: Record<string, string> }>(Kinds.ConfigMap, 'jumphost-tenant');
    expect(cm.data['authorized-keys']).toBe(`${ED25519}\n`);

    // Dex: issuer, the client (secret by reference) and the connector.
    const dex = parse(await secretValue('auth-tenant', 'config.yaml'));
    expect(dex).toMatchObject({
      issuer: `http://auth-tenant.${ns}.svc:5556/dex`,
      staticClients: [{ id: 'kubernetes', secretEnv: 'SIP_DEX_CLIENT_0_SECRET' }],
      connectors: [{ type: 'ldap', id: 'corp' }],
    });
    const dexDeployment = await deployment('auth-tenant');
    expect(JSON.stringify(dexDeployment.spec.template.spec)).toContain(
      '"secretKeyRef":{"name":"oidc-client","key":"clientSecret"}',
    );

    // Everything is owned by the SIPCluster (garbage collected with it).
    for (const name of [
      'loadbalancer-controlplane-tenant',
      'loadbalancer-worker-tenant',
      'jumphost-tenant',
      'auth-tenant',
    ]) {
      const d = await deployment(name);
      expect(d.metadata.ownerReferences).toEqual([
        expect.objectContaining({ kind: 'SIPCluster', name: 'tenant', controller: true }),
      ]);
    }
  });

  it('Ready is False/Progressing while a service is not rolled out, True once it is', async () => {
    await createFleet();
    // The jump host selects a node label no node has yet: its pod stays Pending.
    const label = `stackops.test/${ns}`;
    const spec = fullSpec();
    spec.services.jumpHost = spec.services.jumpHost?.map((j) => ({ ...j, nodeLabels: { [label]: 'yes' } }));
    await createSipCluster(client, ns, 'tenant', spec);
    // The other services roll out on kwok's nodes; the jump host alone is left.
    const progressing = await waitUntil(
      'Ready False/Progressing naming only the jump host',
      async () => {
        const sip = await client.get<SIPCluster>(SIPClusterKind, { namespace: ns, name: 'tenant' });
        const ready = sip?.status?.conditions?.find((c) => c.type === 'Ready');
        return ready?.reason === 'Progressing' &&
          ready.message?.endsWith('services rolling out: jumphost-tenant')
          ? ready
          : undefined;
      },
      { timeoutMs: 30_000 },
    );
    expect(progressing).toMatchObject({ status: 'False', severity: 'Info' });
    // Rolling out is not a failure: the hosts are labelled already.
    expect((await hostOwners(client, ns))['cp-a']).toBe('tenant');

    // A node gets the label: only the jump host Deployment's status changes, and that wakes the reconcile.
    const { items: nodes } = await client.list<KubeObject>(Kinds.Node, { labelSelector: 'type=kwok' });
    const node = nodes[0]?.metadata.name ?? '';
    await client.patch(Kinds.Node, { name: node }, { metadata: { labels: { [label]: 'yes' } } }, 'merge');
    try {
      const ready = await waitForReady(client, ns, 'tenant', 'True', 'ReconciliationSucceeded');
      expect(ready.message).toContain('jumphost-tenant');
    } finally {
      await client.patch(Kinds.Node, { name: node }, { metadata: { labels: { [label]: null } } }, 'merge');
    }
  });

  it('a reconcile with unchanged inputs writes nothing', async () => {
    await readyTenant();
    const controller = operator.manager.controllerNamed('sipcluster')!;
    await controller.whenIdle();
    const reconciles = () => reconcileCount(operator.manager, 'sipcluster');
    const before = await reconciles();
    operator.manager.client.requests.reset();
    controller.enqueue({ namespace: ns, name: 'tenant' });
    await waitUntil('the reconcile to run', async () => (await reconciles()) > before);
    await controller.whenIdle();
    expect(operator.manager.client.requests.writes()).toBe(0);
  });

  it("a host's IP change updates the configs and rolls the Deployments", async () => {
    await readyTenant();
    const before = {
      lb: (await deployment('loadbalancer-controlplane-tenant')).spec.template.metadata.annotations,
      jump: (await deployment('jumphost-tenant')).spec.template.metadata.annotations,
      dex: (await deployment('auth-tenant')).spec.template.metadata.annotations,
    };

    await putNetworkData(client, ns, 'cp-a', { 'oam-ipv4': '10.0.0.100' });
    // One reconcile updates the services one after the other: wait for the last one (the jump host).
    await waitUntil('the jump host config to have the new IP', async () =>
      (await secretValue('jumphost-tenant', 'ssh_config')).includes('Host cp-a\n  HostName 10.0.0.100'),
    );
    expect(await secretValue('loadbalancer-controlplane-tenant', 'haproxy.cfg')).toContain(
      'server cp-a 10.0.0.100:6443',
    );
    const lb = await deployment('loadbalancer-controlplane-tenant');
    expect(lb.spec.template.metadata.annotations).not.toEqual(before.lb);
    const jump = await deployment('jumphost-tenant');
    expect(jump.spec.template.metadata.annotations).not.toEqual(before.jump);
    expect(jump.spec.template.spec['hostAliases']).toContainEqual({ ip: '10.0.0.100', hostnames: ['cp-a'] });
    // Dex does not depend on the hosts: it does not roll.
    expect((await deployment('auth-tenant')).spec.template.metadata.annotations).toEqual(before.dex);
    // The rollout is real: the Deployment controller made a second ReplicaSet.
    await waitUntil('a new ReplicaSet for the load balancer', async () => {
      const { items } = await client.list<KubeObject>(
        { group: 'apps', version: 'v1', kind: 'ReplicaSet', plural: 'replicasets', namespaced: true },
        { namespace: ns, labelSelector: 'app.kubernetes.io/instance=loadbalancer-controlplane-tenant' },
      );
      return items.length >= 2;
    });
  });

  it('scales up and down: adds hosts, releases the surplus, updates the load balancer', async () => {
    await readyTenant();

    await patchTenant({ nodes: { Worker: { count: { active: 3, standby: 0 } } } });
    await waitUntil('three workers', async () => {
      const o = await hostOwners(client, ns);
      return ['w-a', 'w-c', 'w-d'].every((h) => o[h] === 'tenant') && o['w-b'] === undefined;
    });
    await waitUntil('the worker LB to list w-d', async () =>
      (await secretValue('loadbalancer-worker-tenant', 'haproxy.cfg')).includes('server w-d 10.0.1.4'),
    );

    await patchTenant({ nodes: { Worker: { count: { active: 1, standby: 0 } } } });
    await waitUntil('one worker left', async () => {
      const o = await hostOwners(client, ns);
      return o['w-a'] === 'tenant' && ['w-b', 'w-c', 'w-d'].every((h) => o[h] === undefined);
    });
    // Only w-a is left behind each port of the range.
    await waitUntil('the worker LB to list only w-a', async () => {
      const lines = serverLines(await secretValue('loadbalancer-worker-tenant', 'haproxy.cfg'));
      return lines.length === 3 && lines.every((l) => l.startsWith('server w-a ')) ? lines : undefined;
    });
    expect(serverLines(await secretValue('loadbalancer-worker-tenant', 'haproxy.cfg'))).toEqual(
      [portBase + 1, portBase + 2, portBase + 3].map((p) => `server w-a 10.0.1.1:${p}`),
    );
    const sip = await waitUntil('status to show one worker', async () => {
      const s = await client.get<SIPCluster>(SIPClusterKind, { namespace: ns, name: 'tenant' });
      return s?.status?.nodes?.['Worker']?.scheduled === 1 ? s : undefined;
    });
    expect(sip.status?.nodes?.['Worker']?.hosts).toEqual([`${ns}/w-a`]);
  });

  it('removing a service from the spec deletes its objects', async () => {
    await readyTenant();
    await patchTenant({ services: { auth: null } });
    await waitUntil(
      'Dex to be removed',
      async () => !(await client.get(Kinds.Deployment, { namespace: ns, name: 'auth-tenant' })),
    );
    expect(await client.get(Kinds.Secret, { namespace: ns, name: 'auth-tenant' })).toBeUndefined();
    expect(await client.get(Kinds.Deployment, { namespace: ns, name: 'jumphost-tenant' })).toBeDefined();
  });

  it('two SIPClusters competing for the same hosts never share one', async () => {
    for (const h of [
      cpHost('cp-a', 'r1', '10.0.0.1'),
      cpHost('cp-b', 'r2', '10.0.0.2'),
      cpHost('cp-c', 'r3', '10.0.0.3'),
    ]) {
      await createHost(client, ns, h);
    }
    // Serial processing: sample how many reconciles run at once while both clusters are handled.
    const controller = operator.manager.controllerNamed('sipcluster')!;
    let mostAtOnce = 0;
    const sampler = setInterval(() => {
      mostAtOnce = Math.max(mostAtOnce, controller.stats.running);
    }, 2);
    await Promise.all([
      createSipCluster(client, ns, 'alpha', cpOnly(portBase, 2)),
      createSipCluster(client, ns, 'beta', cpOnly(portBase + 1, 2)),
    ]);

    const outcome = await waitUntil('one cluster Ready and the other Unschedulable', async () => {
      const conds = await Promise.all(
        ['alpha', 'beta'].map(
          async (n) =>
            (await client.get<SIPCluster>(SIPClusterKind, { namespace: ns, name: n }))?.status
              ?.conditions?.[0],
        ),
      );
      const reasons = conds.map((c) => c?.reason).sort();
      return reasons[0] === 'ReconciliationSucceeded' && reasons[1] === 'Unschedulable' ? conds : undefined;
    });
    clearInterval(sampler);
    expect(mostAtOnce).toBe(1);
    const winner = outcome[0]?.reason === 'ReconciliationSucceeded' ? 'alpha' : 'beta';
    const loser = winner === 'alpha' ? 'beta' : 'alpha';
    const failed = outcome.find((c) => c?.reason === 'Unschedulable')!;
    expect(failed.message).toContain('ControlPlane: 1 of 2 hosts missing');
    expect(failed.message).toContain('2 held by other SIPClusters');
    const owners = await hostOwners(client, ns);
    expect(Object.values(owners).filter((o) => o === winner)).toHaveLength(2);
    expect(Object.values(owners).filter((o) => o === loser)).toHaveLength(0);
    const winnerLb = serverLines(await secretValue(`loadbalancer-controlplane-${winner}`, 'haproxy.cfg'));
    expect(winnerLb.map((l) => l.split(' ')[1]).sort()).toEqual(
      Object.entries(owners)
        .filter(([, o]) => o === winner)
        .map(([h]) => h)
        .sort(),
    );
    // The loser deployed nothing: its gather failed before any service was rendered.
    expect(
      await client.get(Kinds.Secret, { namespace: ns, name: `loadbalancer-controlplane-${loser}` }),
    ).toBeUndefined();
    // No storm while both exist: a bounded number of writes over a 10 s window (the loser re-checks
    // on its waiting delay, writing nothing when its status is unchanged).
    await new Promise((r) => setTimeout(r, 1_000));
    const writesBefore = operator.manager.client.requests.writes();
    await new Promise((r) => setTimeout(r, 10_000));
    expect(operator.manager.client.requests.writes() - writesBefore).toBeLessThanOrEqual(2);

    // Once the winner is gone its hosts are free again, and the loser takes them.
    await client.delete(SIPClusterKind, { namespace: ns, name: winner });
    await waitForReady(client, ns, loser, 'True');
    const after = await hostOwners(client, ns);
    expect(Object.values(after).filter((o) => o === loser)).toHaveLength(2);
    expect(Object.values(after).filter((o) => o === winner)).toHaveLength(0);
  });

  it('openstack.org/paused: nothing written while set (an edited config stays edited), a condition and Events say so, put right once removed', async () => {
    await readyTenant();
    const config = { namespace: ns, name: 'loadbalancer-controlplane-tenant' };
    const edited = Buffer.from('edited during maintenance').toString('base64');
    const outcome = await pausedRoundTrip({
      client,
      operatorClient: operator.manager.client,
      kind: SIPClusterKind,
      ref: { namespace: ns, name: 'tenant' },
      namespaces: [ns],
      edit: async () =>
        void (await client.patch(Kinds.Secret, config, { data: { 'haproxy.cfg': edited } }, 'merge')),
      edited: async () =>
        (await client.get<KubeObject & { data?: Record<string, string> }>(Kinds.Secret, config))?.data?.[
          'haproxy.cfg'
        ] === edited,
    });
    expect(outcome).toEqual(PAUSED_AS_DOCUMENTED);
  });

  it('deletion unlabels every host and the services are garbage collected', async () => {
    await readyTenant();
    const deploymentNames = async () =>
      (await client.list(Kinds.Deployment, { namespace: ns })).items.map((d) => d.metadata.name).sort();
    expect(await deploymentNames()).toEqual([
      'auth-tenant',
      'jumphost-tenant',
      'loadbalancer-controlplane-tenant',
      'loadbalancer-worker-tenant',
    ]);
    expect(Object.values(await hostOwners(client, ns)).filter((o) => o === 'tenant')).toHaveLength(4);

    await client.delete(SIPClusterKind, { namespace: ns, name: 'tenant' });
    await waitUntil(
      'the SIPCluster to be gone',
      async () => !(await client.get(SIPClusterKind, { namespace: ns, name: 'tenant' })),
    );
    const sipLabels = async () => {
      const { items } = await client.list<KubeObject>(BareMetalHostKind, { namespace: ns });
      return Object.fromEntries(
        items.map((b) => [
          b.metadata.name,
          Object.keys(b.metadata.labels ?? {}).filter((k) => k.startsWith('sip.airshipit.org/')),
        ]),
      );
    };
    expect(await sipLabels()).toEqual(
      Object.fromEntries(['cp-a', 'cp-b', 'cp-c', 'w-a', 'w-b', 'w-c', 'w-d'].map((h) => [h, []])),
    );
    await waitUntil('the services to be garbage collected', async () => {
      const { items: deployments } = await client.list(Kinds.Deployment, { namespace: ns });
      return deployments.length === 0;
    });
  });
});

describe('SIPCluster bad input', () => {
  async function warningEvents(): Promise<{ reason: string; message: string }[]> {
    const { items } = await client.list<KubeObject & { type: string; reason: string; message: string }>(
      Kinds.Event,
      { namespace: ns },
    );
    return items.filter((e) => e.type === 'Warning');
  }

  it('a host without the interface gives an Error condition naming the host and the interface', async () => {
    await createHost(client, ns, {
      name: 'cp-x',
      labels: { [ROLE]: 'control-plane' },
      ips: { 'pxe-ipv4': '172.0.0.9' },
    });
    await createSipCluster(client, ns, 'tenant', cpOnly(portBase));
    const ready = await waitForReady(client, ns, 'tenant', 'False', 'Unschedulable');
    expect(ready.severity).toBe('Error');
    expect(ready.message).toContain(`${ns}/cp-x`);
    expect(ready.message).toContain('no IP on interface oam-ipv4');
    const events = await waitUntil('a Warning event', async () => {
      const e = await warningEvents();
      return e.length > 0 ? e : undefined;
    });
    expect(events[0]!.message).toContain('oam-ipv4');
    expect(await hostOwners(client, ns)).toStrictEqual({ 'cp-x': undefined });

    // Fixing the Secret is enough: the operator watches it.
    await putNetworkData(client, ns, 'cp-x', { 'oam-ipv4': '10.0.0.9' });
    await waitForReady(client, ns, 'tenant', 'True');
    expect(await hostOwners(client, ns)).toStrictEqual({ 'cp-x': 'tenant' });
  });

  it('a missing networkData Secret gives a condition naming the host, the Secret and the interface', async () => {
    await createHost(client, ns, { name: 'cp-y', labels: { [ROLE]: 'control-plane' }, ips: undefined });
    await createSipCluster(client, ns, 'tenant', cpOnly(portBase));
    const ready = await waitForReady(client, ns, 'tenant', 'False', 'Unschedulable');
    expect(ready.message).toContain(
      `${ns}/cp-y (networkData Secret ${ns}/cp-y-networkdata not found (needed for the IP on interface oam-ipv4))`,
    );
  });

  it('a held host that loses its interface is not swapped silently: the condition names it', async () => {
    await createHost(client, ns, {
      name: 'cp-z',
      labels: { [ROLE]: 'control-plane' },
      ips: { 'oam-ipv4': '10.0.0.7' },
    });
    await createHost(client, ns, {
      name: 'cp-zz',
      labels: { [ROLE]: 'control-plane' },
      ips: { 'oam-ipv4': '10.0.0.8' },
    });
    await createSipCluster(client, ns, 'tenant', cpOnly(portBase));
    await waitForReady(client, ns, 'tenant', 'True');
    await putNetworkData(client, ns, 'cp-z', { 'pxe-ipv4': '172.0.0.7' });
    const ready = await waitForReady(client, ns, 'tenant', 'False', 'Unschedulable');
    expect(ready.severity).toBe('Error');
    expect(ready.message).toBe(
      `BareMetalHost ${ns}/cp-z (ControlPlane): no IP on interface oam-ipv4 in networkData Secret ${ns}/cp-z-networkdata`,
    );
    expect(await hostOwners(client, ns)).toStrictEqual({ 'cp-z': 'tenant', 'cp-zz': undefined });
  });

  it('a missing nodeSSHPrivateKeys Secret is an InfraServiceFailure naming it; hosts stay unlabelled', async () => {
    await createHost(client, ns, {
      name: 'cp-k',
      labels: { [ROLE]: 'control-plane' },
      ips: { 'oam-ipv4': '10.0.0.5' },
    });
    const spec = cpOnly(portBase);
    spec.services.jumpHost = [
      { nodePort: portBase + 1, nodeInterfaceId: 'oam-ipv4', nodeSSHPrivateKeys: 'missing-keys' },
    ];
    await createSipCluster(client, ns, 'tenant', spec);
    const ready = await waitForReady(client, ns, 'tenant', 'False', 'InfraServiceFailure');
    expect(ready.message).toBe(`jumpHost.nodeSSHPrivateKeys: Secret ${ns}/missing-keys not found`);
    expect(await hostOwners(client, ns)).toStrictEqual({ 'cp-k': undefined });
  });

  it('spec errors are reported at once, all of them, with the missing hosts beside them; nothing is deployed', async () => {
    // No BareMetalHost at all: gathering the hosts would wait; the keys' blobs name another type.
    const mismatched = 'ssh-rsa AAAAC3NzaC1lZDI1NTE5AAAAIGb8 x';
    const spec = cpOnly(portBase);
    spec.services.jumpHost = [
      {
        nodePort: portBase + 1,
        nodeInterfaceId: 'oam-ipv4',
        nodeSSHPrivateKeys: 'keys',
        sshAuthorizedKeys: [mismatched, ED25519, mismatched],
      },
    ];
    await createSipCluster(client, ns, 'tenant', spec);
    const ready = await waitForReady(client, ns, 'tenant', 'False', 'InfraServiceFailure');
    expect(ready.severity).toBe('Error');
    expect(ready.message).toMatch(
      /^Invalid spec: spec\.services\.jumpHost\[0\]\.sshAuthorizedKeys\[0\] is not a valid authorized key: .*; spec\.services\.jumpHost\[0\]\.sshAuthorizedKeys\[2\] is not a valid authorized key: .*; ControlPlane: 1 of 1 hosts missing/,
    );
    expect((await warningEvents()).map((e) => e.reason)).toContain('InfraServiceFailure');
    expect((await client.list(Kinds.Deployment, { namespace: ns })).items).toEqual([]);
  });

  it('not enough hosts is Unschedulable (Warning) with the count and constraint', async () => {
    await createHost(client, ns, {
      name: 'cp-1',
      labels: { [ROLE]: 'control-plane', [RACK]: 'r1' },
      ips: { 'oam-ipv4': '10.0.0.1' },
    });
    await createHost(client, ns, {
      name: 'cp-2',
      labels: { [ROLE]: 'control-plane', [RACK]: 'r1' },
      ips: { 'oam-ipv4': '10.0.0.2' },
    });
    const spec = cpOnly(portBase);
    spec.nodes!['ControlPlane'] = {
      ...spec.nodes!['ControlPlane']!,
      topologyKey: RACK,
      count: { active: 2, standby: 0 },
    };
    await createSipCluster(client, ns, 'tenant', spec);
    const ready = await waitForReady(client, ns, 'tenant', 'False', 'Unschedulable');
    expect(ready.severity).toBe('Warning');
    expect(ready.message).toContain(`ControlPlane: 1 of 2 hosts missing (active 2 + standby 0)`);
    expect(ready.message).toContain(`at most one host per ${RACK}`);
    expect(ready.message).toContain(`1 shares a ${RACK} with a chosen host`);
    // A new host in another rack resolves it without touching the SIPCluster.
    await createHost(client, ns, {
      name: 'cp-3',
      labels: { [ROLE]: 'control-plane', [RACK]: 'r2' },
      ips: { 'oam-ipv4': '10.0.0.3' },
    });
    await waitForReady(client, ns, 'tenant', 'True');
    expect(await hostOwners(client, ns)).toStrictEqual({
      'cp-1': 'tenant',
      'cp-2': undefined,
      'cp-3': 'tenant',
    });
  });
});
