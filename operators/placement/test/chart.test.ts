import { execFileSync } from 'node:child_process';
import { Kinds, type KubeObject, serviceAccountUser } from '@stackops/lib-common/resources';
import { parseManagerOptions } from '@stackops/lib-common/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
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
  startOperator,
  tool,
  waitFor,
} from './support/harness.js';

const helm = (args: string[]) =>
  execFileSync(tool('helm'), args, { encoding: 'utf8', env: process.env, stdio: ['ignore', 'pipe', 'pipe'] });

interface Rule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
  resourceNames?: string[];
}
interface Manifest extends KubeObject {
  rules?: Rule[];
  spec?: Record<string, unknown>;
}
interface ContainerView {
  image: string;
  args: string[];
  env: { name: string; value?: string }[];
  securityContext: Record<string, unknown>;
  livenessProbe: unknown;
  readinessProbe: unknown;
}

function template(...set: string[]): Manifest[] {
  const out = helm([
    'template',
    'placement',
    CHART_DIR,
    '--namespace',
    'openstack-operators',
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
const container = (ms: Manifest[]): ContainerView => {
  const deployment = byKind(ms, 'Deployment')[0]!;
  return (deployment.spec as { template: { spec: { containers: ContainerView[] } } }).template.spec
    .containers[0]!;
};

describe('chart: lint and template', () => {
  // `enabled` is what the umbrella chart (charts/stackops) sets on each operator chart.
  it.each([
    [[]],
    [['replicas=2']],
    [['watchNamespaces={openstack,other}', 'logLevel=debug']],
    [['enabled=true']],
  ])('helm lint --strict passes with %j', (set: string[]) => {
    expect(helm(['lint', '--strict', CHART_DIR, ...set.flatMap((s) => ['--set', s])])).toContain(
      '0 chart(s) failed',
    );
  });

  it('ships the generated CRD in crds/', () => {
    const crds = helm(['show', 'crds', CHART_DIR]);
    expect(crds).toContain('name: placementapis.placement.openstack.org');
  });

  it('by default: one ClusterRole with the kinds and verbs the operator uses, a Lease Role in its namespace', () => {
    const ms = template();
    const [role] = byKind(ms, 'ClusterRole');
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
    const leases = byKind(ms, 'Role').find((r) => r.rules!.some((x) => x.resources.includes('leases')));
    expect(leases?.metadata.namespace).toBe('openstack-operators');
    expect(byKind(ms, 'ClusterRoleBinding')).toHaveLength(1);
  });

  it('watchNamespaces: a Role and RoleBinding per namespace and no ClusterRole', () => {
    const ms = template('watchNamespaces={openstack,other}');
    expect(byKind(ms, 'ClusterRole')).toEqual([]);
    const namespaces = byKind(ms, 'RoleBinding').map((r) => r.metadata.namespace);
    expect(namespaces.sort()).toEqual(['openstack', 'openstack-operators', 'other']);
    expect(container(ms).args).toContain('--watch-namespace=openstack,other');
  });

  it('a hardened Deployment with probes, image defaults and leader election for replicas > 1', () => {
    const c = container(template('replicas=2', 'relatedImages.placementAPI=registry.local/placement:1'));
    expect(c.image).toBe('ghcr.io/stackops/placement-operator:0.1.0');
    expect(c.args).toContain('--leader-elect');
    expect(c.securityContext).toEqual({
      runAsNonRoot: true,
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
      capabilities: { drop: ['ALL'] },
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(c.livenessProbe).toMatchObject({ httpGet: { path: '/healthz' } });
    expect(c.readinessProbe).toMatchObject({ httpGet: { path: '/readyz' } });
    expect(c.env).toContainEqual({
      name: 'RELATED_IMAGE_PLACEMENT_API_IMAGE_URL_DEFAULT',
      value: 'registry.local/placement:1',
    });
    expect(container(template()).args).not.toContain('--leader-elect');
  });

  it('the operator accepts every argument the chart passes', () => {
    const c = container(template('replicas=2', 'watchNamespaces={a,b}', 'logLevel=debug'));
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
    (set) => {
      expect(() => template(set)).toThrow(/values don't meet the specifications of the schema/);
    },
  );
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
      helm(['uninstall', release, '--namespace', opNs]);
    } finally {
      await client.delete(Kinds.Namespace, { name: workNs }).catch(() => false);
      await client.delete(Kinds.Namespace, { name: opNs }).catch(() => false);
      client.close();
    }
  });

  it('helm install, then the operator as the chart’s ServiceAccount makes a PlacementAPI Ready and deletes it', async () => {
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
    const sa = `${release}-placement-operator`.slice(0, 63).replace(/-$/, '');
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
      await waitFor(
        'PlacementAPI deleted under the chart RBAC',
        async () => !(await client.get(PlacementAPIKind, { namespace: workNs, name: 'placement' })),
      );
    } finally {
      await operator.stop();
    }
  });
});
