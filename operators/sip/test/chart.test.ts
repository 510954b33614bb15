import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Kinds, type KubeObject, type RestKubeClient, serviceAccountUser } from '@stackops/lib-common/client';
import { parseManagerOptions } from '@stackops/lib-common/runtime';
import {
  chartFullname,
  createHelm,
  createTestNamespace,
  findRendered,
  operatorContainerProblems,
  type RenderedObject,
  renderedContainer,
  replicaSpreadProblems,
  type TestNamespace,
  VALUES_SCHEMA_REFUSAL,
  waitUntil,
} from '@stackops/lib-common/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIPClusterKind } from '../src/api/kinds.js';
import { DEFAULT_IMAGES } from '../src/config/images.js';
import {
  CHART_DIR,
  createHost,
  createSipCluster,
  deleteNamespace,
  hostOwners,
  installChartCrds,
  startOperator,
  testClient,
  tool,
  waitForReady,
} from './support.js';

const helm = createHelm(tool('helm'));
const packageVersion = (
  JSON.parse(readFileSync(join(import.meta.dirname, '../package.json'), 'utf8')) as { version: string }
).version;
const template = (...set: string[]): Promise<RenderedObject[]> =>
  helm.template(CHART_DIR, { release: 'sip', namespace: 'sip-system', set });

describe('chart: lint and template', () => {
  it('with replicas > 1: a PodDisruptionBudget (maxUnavailable 1) and a preferred anti-affinity on the hostname; neither with one', async () => {
    expect(replicaSpreadProblems(await template(), await template('replicas=2'))).toEqual([]);
  });

  it.each([[[]], [['installBareMetalHostCRD=true', 'replicas=2']], [['watchNamespaces={tenants,metal3}']]])(
    'helm lint --strict passes with %j',
    async (set: string[]) => {
      expect(await helm.lint(CHART_DIR, set)).toContain('0 chart(s) failed');
    },
  );

  it('by default: a ClusterRole with exactly what the operator uses, no BareMetalHost CRD', async () => {
    const ms = await template();
    expect(findRendered(ms, 'CustomResourceDefinition')).toEqual([]);
    const [role] = findRendered(ms, 'ClusterRole', 'sip-sip-operator-manager');
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
      { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] },
      { apiGroups: ['metal3.io'], resources: ['baremetalhosts'], verbs: ['get', 'list', 'watch', 'patch'] },
    ]);
    expect(findRendered(ms, 'ClusterRoleBinding').map((b) => b.metadata.name)).toEqual([
      'sip-sip-operator-metrics-auth',
      'sip-sip-operator-manager',
    ]);
  });

  it('installBareMetalHostCRD adds the CRD, kept on uninstall', async () => {
    const [crd] = findRendered(await template('installBareMetalHostCRD=true'), 'CustomResourceDefinition');
    expect(crd?.metadata.name).toBe('baremetalhosts.metal3.io');
    expect(crd?.metadata.annotations).toEqual({ 'helm.sh/resource-policy': 'keep' });
  });

  it('watchNamespaces: a Role per namespace and no ClusterRole', async () => {
    const ms = await template('watchNamespaces={tenants,metal3}');
    expect(findRendered(ms, 'ClusterRole').map((r) => r.metadata.name)).toEqual([
      'sip-sip-operator-metrics-auth',
      'sip-sip-operator-metrics-reader',
    ]);
    const roles = findRendered(ms, 'Role').map((r) => r.metadata.namespace);
    expect(roles.sort()).toEqual(['metal3', 'sip-system', 'tenants']);
    const deployment = findRendered(ms, 'Deployment')[0]!;
    expect(JSON.stringify(deployment.spec)).toContain('--watch-namespace=tenants,metal3');
  });

  it('a hardened Deployment with probes, the service images and leader election for replicas > 1', async () => {
    const container = renderedContainer(
      await template('replicas=2', 'relatedImages.dex=registry.local/dex:v2'),
    );
    // The image tag is the chart's appVersion, which follows the package's version.
    expect(container.image).toBe(`ghcr.io/stackops/sip-operator:${packageVersion}`);
    expect(container.args).toContain('--leader-elect');
    expect(operatorContainerProblems(container)).toEqual([]);
    expect(container.env).toContainEqual({ name: 'RELATED_IMAGE_DEX', value: 'registry.local/dex:v2' });
  });

  it('sets the same default service images as the operator', async () => {
    const env = Object.fromEntries(renderedContainer(await template()).env.map((e) => [e.name, e.value]));
    for (const { env: variable, image } of Object.values(DEFAULT_IMAGES))
      expect(env[variable], variable).toBe(image);
  });

  it('the operator accepts every argument the chart passes', async () => {
    const container = renderedContainer(
      await template('replicas=2', 'watchNamespaces={a,b}', 'logLevel=debug'),
    );
    expect(operatorContainerProblems(container)).toEqual([]);
    expect(parseManagerOptions(container.args, {})).toMatchObject({
      namespaces: ['a', 'b'],
      leaderElect: true,
      logLevel: 'debug',
    });
  });

  it.each([['replicas=-1'], ['unknownValue=1'], ['logLevel=loud'], ['watchNamespaces={Bad_Name}']])(
    'the values schema rejects %s',
    async (set) => {
      await expect(template(set)).rejects.toThrow(VALUES_SCHEMA_REFUSAL);
    },
  );
});

describe('chart: install and converge under its RBAC', () => {
  let client: RestKubeClient;
  let release: string;
  let opTestNs: TestNamespace;
  let workTestNs: TestNamespace;
  let opNs: string;
  let workNs: string;

  beforeAll(async () => {
    client = testClient();
    await installChartCrds(client);
    opTestNs = await createTestNamespace(client, 'sip-op');
    workTestNs = await createTestNamespace(client, 'sip-work');
    opNs = opTestNs.name;
    workNs = workTestNs.name;
    release = `sip-${opNs.slice(-6)}`;
  });
  afterAll(async () => {
    try {
      await helm.uninstall(release, opNs);
    } finally {
      await deleteNamespace(client, workTestNs);
      await deleteNamespace(client, opTestNs);
      client.close();
    }
  });

  it('helm install, then the operator as the chart’s ServiceAccount makes a SIPCluster Ready', async () => {
    await helm.install(release, CHART_DIR, {
      namespace: opNs,
      set: [`watchNamespaces={${workNs}}`],
      waitTimeout: '90s',
    });
    const sa = chartFullname(release, 'sip-operator');
    expect(await client.get(Kinds.ServiceAccount, { namespace: opNs, name: sa })).toBeDefined();
    const role = await client.get<RenderedObject>(Kinds.Role, { namespace: workNs, name: `${sa}-manager` });
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
      expect(await hostOwners(client, workNs)).toStrictEqual({ 'cp-1': 'tenant', 'w-1': 'tenant' });
      // Events are recorded after the status write of the same pass: wait for them.
      const reasons = async () =>
        (await client.list<KubeObject & { reason: string }>(Kinds.Event, { namespace: workNs })).items.map(
          (e) => e.reason,
        );
      await waitUntil('a HostScheduled Event', async () => (await reasons()).includes('HostScheduled'));

      // Deletion under the same RBAC: hosts unlabelled, finalizer removed.
      await client.delete(SIPClusterKind, { namespace: workNs, name: 'tenant' });
      await waitUntil('hosts released', async () => {
        const owners = await hostOwners(client, workNs);
        return owners['cp-1'] === undefined && owners['w-1'] === undefined ? owners : undefined;
      });
      expect(await hostOwners(client, workNs)).toStrictEqual({ 'cp-1': undefined, 'w-1': undefined });
    } finally {
      await operator.stop();
    }
  });
});
