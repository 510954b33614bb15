import { execFileSync } from 'node:child_process';
import {
  Kinds,
  type KubeObject,
  type RestKubeClient,
  serviceAccountUser,
} from '@stackops/lib-common/resources';
import { parseManagerOptions } from '@stackops/lib-common/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { SIPClusterKind } from '../src/api/kinds.js';
import {
  CHART_DIR,
  createHost,
  createNamespace,
  createSipCluster,
  deleteNamespace,
  hostOwners,
  installCrds,
  startOperator,
  testClient,
  tool,
  waitFor,
  waitForReady,
} from './support.js';

const helm = (args: string[]) =>
  execFileSync(tool('helm'), args, { encoding: 'utf8', env: process.env, stdio: ['ignore', 'pipe', 'pipe'] });

interface Manifest extends KubeObject {
  rules?: { apiGroups: string[]; resources: string[]; verbs: string[] }[];
  spec?: Record<string, unknown>;
}

function template(...set: string[]): Manifest[] {
  const out = helm([
    'template',
    'sip',
    CHART_DIR,
    '--namespace',
    'sip-system',
    // helm built from source reports Kubernetes 1.20 unless told otherwise; the chart needs >= 1.29
    '--kube-version',
    '1.34.0',
    ...set.flatMap((s) => ['--set', s]),
  ]);
  return parseAllDocuments(out)
    .map((d) => d.toJS() as Manifest | null)
    .filter((m): m is Manifest => m !== null);
}
const byKind = (ms: Manifest[], kind: string) => ms.filter((m) => m.kind === kind);

describe('chart: lint and template', () => {
  it.each([[[]], [['installBareMetalHostCRD=true', 'replicas=2']], [['watchNamespaces={tenants,metal3}']]])(
    'helm lint --strict passes with %j',
    (set: string[]) => {
      expect(helm(['lint', '--strict', CHART_DIR, ...set.flatMap((s) => ['--set', s])])).toContain(
        '0 chart(s) failed',
      );
    },
  );

  it('by default: a ClusterRole with exactly what the operator uses, no BareMetalHost CRD', () => {
    const ms = template();
    expect(byKind(ms, 'CustomResourceDefinition')).toEqual([]);
    const [role] = byKind(ms, 'ClusterRole');
    expect(role?.rules).toEqual([
      {
        apiGroups: ['airship.airshipit.org'],
        resources: ['sipclusters'],
        verbs: ['get', 'list', 'watch', 'patch'],
      },
      { apiGroups: ['airship.airshipit.org'], resources: ['sipclusters/status'], verbs: ['get', 'patch'] },
      { apiGroups: ['airship.airshipit.org'], resources: ['sipclusters/finalizers'], verbs: ['update'] },
      {
        apiGroups: [''],
        resources: ['secrets', 'configmaps', 'services'],
        verbs: ['get', 'list', 'watch', 'create', 'patch', 'delete'],
      },
      {
        apiGroups: ['apps'],
        resources: ['deployments'],
        verbs: ['get', 'list', 'watch', 'create', 'patch', 'delete'],
      },
      { apiGroups: ['', 'events.k8s.io'], resources: ['events'], verbs: ['create', 'patch'] },
      { apiGroups: ['metal3.io'], resources: ['baremetalhosts'], verbs: ['get', 'list', 'watch', 'patch'] },
    ]);
    expect(byKind(ms, 'ClusterRoleBinding')).toHaveLength(1);
  });

  it('installBareMetalHostCRD adds the CRD, kept on uninstall', () => {
    const [crd] = byKind(template('installBareMetalHostCRD=true'), 'CustomResourceDefinition');
    expect(crd?.metadata.name).toBe('baremetalhosts.metal3.io');
    expect(crd?.metadata.annotations).toEqual({ 'helm.sh/resource-policy': 'keep' });
  });

  it('watchNamespaces: a Role per namespace and no ClusterRole', () => {
    const ms = template('watchNamespaces={tenants,metal3}');
    expect(byKind(ms, 'ClusterRole')).toEqual([]);
    const roles = byKind(ms, 'Role').map((r) => r.metadata.namespace);
    expect(roles.sort()).toEqual(['metal3', 'sip-system', 'tenants']);
    const deployment = byKind(ms, 'Deployment')[0]!;
    expect(JSON.stringify(deployment.spec)).toContain('--watch-namespace=tenants,metal3');
  });

  it('a hardened Deployment with probes, the service images and leader election for replicas > 1', () => {
    const deployment = byKind(
      template('replicas=2', 'relatedImages.dex=registry.local/dex:v2'),
      'Deployment',
    )[0]!;
    const pod = (deployment.spec as { template: { spec: Record<string, unknown> } }).template.spec;
    const container = (pod['containers'] as Record<string, unknown>[])[0]!;
    expect(container['image']).toBe('ghcr.io/stackops/sip-operator:0.1.0');
    expect(container['args']).toContain('--leader-elect');
    expect(container['securityContext']).toEqual({
      runAsNonRoot: true,
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
      capabilities: { drop: ['ALL'] },
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(container['livenessProbe']).toMatchObject({ httpGet: { path: '/healthz' } });
    expect(container['readinessProbe']).toMatchObject({ httpGet: { path: '/readyz' } });
    expect(container['env']).toContainEqual({ name: 'RELATED_IMAGE_DEX', value: 'registry.local/dex:v2' });
    expect(container['env']).toContainEqual({ name: 'RELATED_IMAGE_HAPROXY', value: 'haproxy:2.3.2' });
  });

  it('the operator accepts every argument the chart passes', () => {
    const deployment = byKind(
      template('replicas=2', 'watchNamespaces={a,b}', 'logLevel=debug'),
      'Deployment',
    )[0]!;
    const container = (deployment.spec as { template: { spec: { containers: { args: string[] }[] } } })
      .template.spec.containers[0]!;
    const flags = parseManagerOptions(container.args, {});
    expect(flags).toMatchObject({
      namespaces: ['a', 'b'],
      leaderElect: true,
      logLevel: 'debug',
      metricsBindAddress: ':8080',
      healthProbeBindAddress: ':8081',
    });
  });

  it.each([['replicas=-1'], ['unknownValue=1'], ['logLevel=loud'], ['watchNamespaces={Bad_Name}']])(
    'the values schema rejects %s',
    (set) => {
      expect(() => template(set)).toThrow(/values don't meet the specifications of the schema/);
    },
  );
});

describe('chart: install and converge under its RBAC', () => {
  let client: RestKubeClient;
  let release: string;
  let opNs: string;
  let workNs: string;

  beforeAll(async () => {
    client = testClient();
    await installCrds(client);
    opNs = await createNamespace(client, 'sip-op');
    workNs = await createNamespace(client, 'sip-work');
    release = `sip-${opNs.slice(-6)}`;
  });
  afterAll(async () => {
    try {
      helm(['uninstall', release, '--namespace', opNs]);
    } finally {
      await deleteNamespace(client, workNs);
      await deleteNamespace(client, opNs);
      client.close();
    }
  });

  it('helm install, then the operator as the chart’s ServiceAccount makes a SIPCluster Ready', async () => {
    helm([
      'install',
      release,
      CHART_DIR,
      '--namespace',
      opNs,
      '--set',
      `watchNamespaces={${workNs}}`,
      '--wait',
      '--timeout',
      '90s',
    ]);
    const sa = `${release}-sip-operator`;
    expect(await client.get(Kinds.ServiceAccount, { namespace: opNs, name: sa })).toBeDefined();
    const role = await client.get<Manifest>(Kinds.Role, { namespace: workNs, name: `${sa}-manager` });
    expect(role?.rules?.length).toBeGreaterThan(0);

    await createHost(client, workNs, {
      name: 'cp-1',
      labels: { flavor: 'cp' },
      ips: { 'oam-ipv4': '10.1.0.1' },
    });
    await createHost(client, workNs, {
      name: 'w-1',
      labels: { flavor: 'worker' },
      ips: { 'oam-ipv4': '10.1.1.1' },
    });
    await client.create(Kinds.Secret, {
      metadata: { name: 'keys', namespace: workNs },
      data: { id_rsa: 'eA==' },
    });

    const operator = await startOperator([workNs], { impersonate: serviceAccountUser(opNs, sa) });
    try {
      await createSipCluster(client, workNs, 'tenant', {
        nodes: {
          ControlPlane: {
            labelSelector: { matchLabels: { flavor: 'cp' } },
            count: { active: 1, standby: 0 },
          },
          Worker: { labelSelector: { matchLabels: { flavor: 'worker' } }, count: { active: 1, standby: 0 } },
        },
        services: {
          loadBalancerControlPlane: [{ nodePort: 31900, nodeInterfaceId: 'oam-ipv4' }],
          loadBalancerWorker: [{ nodePortRange: { start: 31901, end: 31902 }, nodeInterfaceId: 'oam-ipv4' }],
          jumpHost: [{ nodePort: 31903, nodeInterfaceId: 'oam-ipv4', nodeSSHPrivateKeys: 'keys' }],
        },
      });
      await waitForReady(client, workNs, 'tenant', 'True', 'ReconciliationSucceeded', 45_000);
      expect(await hostOwners(client, workNs)).toEqual({ 'cp-1': 'tenant', 'w-1': 'tenant' });
      const events = await client.list<KubeObject & { reason: string }>(Kinds.Event, { namespace: workNs });
      expect(events.items.map((e) => e.reason)).toContain('HostScheduled');

      // Deletion under the same RBAC: hosts unlabelled, finalizer removed.
      await client.delete(SIPClusterKind, { namespace: workNs, name: 'tenant' });
      await waitFor('hosts released', async () => {
        const owners = await hostOwners(client, workNs);
        return Object.values(owners).every((o) => o === undefined);
      });
    } finally {
      await operator.stop();
    }
  });
});
