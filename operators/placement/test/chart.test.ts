import { Kinds, serviceAccountUser } from '@stackops/lib-common/client';
import { parseManagerOptions } from '@stackops/lib-common/runtime';
import {
  chartFullname,
  createHelm,
  findRendered,
  operatorContainerProblems,
  type RenderedObject,
  renderedContainer,
  replicaSpreadProblems,
  VALUES_SCHEMA_REFUSAL,
  waitUntil,
  webhookChartProblems,
} from '@stackops/lib-common/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PlacementAPIKind } from '../src/api/kinds.js';
import {
  createPlacementAPI,
  createPrerequisites,
  simulateKeystoneRegistration,
  waitForCondition,
} from './support/fixtures.js';
import {
  adminClient,
  CHART_DIR,
  installCrds,
  newNamespace,
  PACKAGE_VERSION,
  startOperator,
  tool,
} from './support/harness.js';

const helm = createHelm(tool('helm'));
const template = (...set: string[]): Promise<RenderedObject[]> =>
  helm.template(CHART_DIR, { release: 'placement', namespace: 'openstack-operators', set });

describe('chart: lint and template', () => {
  it('with replicas > 1: a PodDisruptionBudget (maxUnavailable 1) and a preferred anti-affinity on the hostname; neither with one', async () => {
    expect(replicaSpreadProblems(await template(), await template('replicas=2'))).toEqual([]);
  });

  // `enabled` is what the umbrella chart (charts/stackops) sets on each operator chart.
  it.each([
    [[]],
    [['replicas=2']],
    [['watchNamespaces={openstack,other}', 'logLevel=debug']],
    [['enabled=true']],
  ])('helm lint --strict passes with %j', async (set: string[]) => {
    expect(await helm.lint(CHART_DIR, set)).toContain('0 chart(s) failed');
  });

  it('ships the generated CRD in crds/', async () => {
    const crds = await helm.run(['show', 'crds', CHART_DIR]);
    expect(crds).toContain('name: placementapis.placement.openstack.org');
  });

  it('by default: one ClusterRole with the kinds and verbs the operator uses, a Lease Role in its namespace', async () => {
    const ms = await template();
    const [role] = findRendered(ms, 'ClusterRole', 'placement-placement-operator');
    const resources = role!.rules!.flatMap((r) => r.resources);
    for (const r of [
      'placementapis',
      'placementapis/status',
      'placementapis/finalizers',
      'keystoneapis',
      'keystoneservices',
      'keystoneendpoints',
      'secrets',
      'services',
      'serviceaccounts',
      'pods',
      'deployments',
      'jobs',
      'roles',
      'rolebindings',
      'network-attachment-definitions',
      'events',
    ]) {
      expect(resources, r).toContain(r);
    }
    // Read-only where the operator only reads.
    const verbsOf = (res: string) => role!.rules!.find((r) => r.resources.includes(res))!.verbs;
    expect(verbsOf('keystoneapis')).toEqual(['get', 'list', 'watch']);
    expect(verbsOf('network-attachment-definitions')).toEqual(['get', 'list', 'watch']);
    expect(verbsOf('placementapis')).not.toContain('delete');
    expect(role!.rules!.find((r) => r.resources.includes('securitycontextconstraints'))).toEqual({
      apiGroups: ['security.openshift.io'],
      resources: ['securitycontextconstraints'],
      resourceNames: ['anyuid'],
      verbs: ['use'],
    });
    const leases = findRendered(ms, 'Role').find((r) => r.rules!.some((x) => x.resources.includes('leases')));
    expect(leases?.metadata.namespace).toBe('openstack-operators');
    expect(findRendered(ms, 'ClusterRoleBinding').map((b) => b.metadata.name)).toEqual([
      'placement-placement-operator-metrics-auth',
      'placement-placement-operator',
      'placement-placement-operator-optional-crds',
    ]);
  });

  it('watchNamespaces: a Role and RoleBinding per namespace and no ClusterRole', async () => {
    const ms = await template('watchNamespaces={openstack,other}');
    expect(findRendered(ms, 'ClusterRole').map((r) => r.metadata.name)).toEqual([
      'placement-placement-operator-metrics-auth',
      'placement-placement-operator-metrics-reader',
      'placement-placement-operator-optional-crds',
    ]);
    const namespaces = findRendered(ms, 'RoleBinding').map((r) => r.metadata.namespace);
    expect(namespaces.sort()).toEqual(['openstack', 'openstack-operators', 'other']);
    expect(renderedContainer(ms).args).toContain('--watch-namespace=openstack,other');
  });

  it('a hardened Deployment with probes, image defaults and leader election for replicas > 1', async () => {
    const c = renderedContainer(
      await template('replicas=2', 'relatedImages.placementAPI=registry.local/placement:1'),
    );
    // The chart's appVersion, kept equal to the package version by tools/release.
    expect(c.image).toBe(`ghcr.io/stackops/placement-operator:${PACKAGE_VERSION}`);
    expect(c.args).toContain('--leader-elect');
    // Hardened securityContext, /healthz and /readyz probes, arguments the operator accepts.
    expect(operatorContainerProblems(c)).toEqual([]);
    expect(c.env).toContainEqual({
      name: 'RELATED_IMAGE_PLACEMENT_API_IMAGE_URL_DEFAULT',
      value: 'registry.local/placement:1',
    });
    expect(renderedContainer(await template()).args).not.toContain('--leader-elect');
  });

  it('the operator accepts every argument the chart passes', async () => {
    const c = renderedContainer(await template('replicas=2', 'watchNamespaces={a,b}', 'logLevel=debug'));
    expect(parseManagerOptions(c.args, {})).toMatchObject({
      namespaces: ['a', 'b'],
      leaderElect: true,
      logLevel: 'debug',
      metricsBindAddress: ':8080',
      healthProbeBindAddress: ':8081',
    });
  });

  it.each([['replicas=-1'], ['unknownValue=1'], ['logLevel=loud'], ['watchNamespaces={Bad_Name}']])(
    'the values schema rejects %s',
    async (set) => {
      await expect(template(set)).rejects.toThrow(VALUES_SCHEMA_REFUSAL);
    },
  );

  it('webhook.enabled renders the defaulting webhook (Service, certificate, failurePolicy Ignore); off by default', async () => {
    expect(
      await webhookChartProblems(
        template,
        '/mutate-placement-openstack-org-v1beta1-placementapi',
        'openstack-operators',
      ),
    ).toEqual([]);
  });
});

describe('chart: install and converge under its RBAC', () => {
  const client = adminClient();
  let release: string;
  let opNs: string;
  let workNs: string;

  beforeAll(async () => {
    await installCrds(client);
    opNs = await newNamespace(client, 'pl-op');
    workNs = await newNamespace(client, 'pl-work');
    release = `placement-${opNs.slice(-6)}`;
  });
  afterAll(async () => {
    try {
      await helm.uninstall(release, opNs);
    } finally {
      await client.delete(Kinds.Namespace, { name: workNs }).catch(() => false);
      await client.delete(Kinds.Namespace, { name: opNs }).catch(() => false);
      client.close();
    }
  });

  it('helm install, then the operator as the chart’s ServiceAccount makes a PlacementAPI Ready and deletes it', async () => {
    await helm.install(release, CHART_DIR, {
      namespace: opNs,
      set: [`watchNamespaces={${workNs}}`],
      waitTimeout: '90s',
    });
    const sa = chartFullname(release, 'placement-operator');
    expect(await client.get(Kinds.ServiceAccount, { namespace: opNs, name: sa })).toBeDefined();
    expect(await client.get(Kinds.Role, { namespace: workNs, name: sa })).toBeDefined();

    await createPrerequisites(client, workNs);
    const operator = await startOperator({ namespaces: [workNs], impersonate: serviceAccountUser(opNs, sa) });
    try {
      // The operator really is the ServiceAccount: outside its Roles it is refused.
      await expect(operator.manager.client.list(Kinds.Secret, { namespace: opNs })).rejects.toMatchObject({
        code: 403,
      });
      await createPlacementAPI(client, workNs);
      await simulateKeystoneRegistration(client, workNs);
      const ready = await waitForCondition(client, workNs, 'Ready', 'True', { timeoutMs: 120_000 });
      expect(ready.status?.readyCount).toBe(1);

      await client.delete(PlacementAPIKind, { namespace: workNs, name: 'placement' });
      await waitUntil(
        'PlacementAPI deleted under the chart RBAC',
        async () => !(await client.get(PlacementAPIKind, { namespace: workNs, name: 'placement' })),
      );
    } finally {
      await operator.stop();
    }
  });
});
