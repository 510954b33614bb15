import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { createKubeClient, Kinds, type KubeClient, type KubeObject } from '@stackops/lib-common/resources';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { cacheLayout } from '../../../tools/kube-env/dist/index.js';
import {
  adminClient,
  CHART_DIR,
  installCrds,
  kubeConfig,
  newNamespace,
  startOperator,
} from './support/harness.js';
import {
  createDatabaseService,
  createInputSecret,
  createKeystone,
  isReady,
  waitForKeystone,
} from './support/keystone.js';

const helmBin = join(cacheLayout().bin, 'helm');
const helm = (...args: string[]): string =>
  execFileSync(helmBin, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: process.env });

interface Rule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
}
type Rendered = KubeObject & { rules?: Rule[]; spec?: Record<string, unknown> };

function template(...set: string[]): Rendered[] {
  const out = helm(
    'template',
    'ks',
    CHART_DIR,
    '--namespace',
    'operators',
    '--kube-version',
    '1.34.0',
    ...set.flatMap((s) => ['--set', s]),
  );
  return parseAllDocuments(out)
    .map((d) => d.toJS() as Rendered)
    .filter((d) => d !== null);
}
const ofKind = (docs: Rendered[], kind: string) => docs.filter((d) => d.kind === kind);

describe('chart keystone-operator', () => {
  it('passes helm lint --strict, also when watching namespaces', () => {
    expect(helm('lint', '--strict', CHART_DIR)).toContain('0 chart(s) failed');
    expect(helm('lint', '--strict', CHART_DIR, '--set', 'watchNamespaces={a,b}')).toContain(
      '0 chart(s) failed',
    );
  });

  it('renders a hardened Deployment with probes, related images and leader election when replicated', () => {
    const [deploy] = ofKind(template(), 'Deployment');
    const pod = (deploy!.spec!['template'] as { spec: { containers: Record<string, unknown>[] } }).spec;
    const c = pod.containers[0]!;
    expect(c['image']).toBe('ghcr.io/stackops/keystone-operator:0.1.0');
    expect(c['securityContext']).toMatchObject({
      runAsNonRoot: true,
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
      capabilities: { drop: ['ALL'] },
    });
    expect(c['livenessProbe']).toMatchObject({ httpGet: { path: '/healthz' } });
    expect(c['readinessProbe']).toMatchObject({ httpGet: { path: '/readyz' } });
    expect(c['env']).toContainEqual({
      name: 'RELATED_IMAGE_KEYSTONE_API_IMAGE_URL_DEFAULT',
      value: 'quay.io/podified-antelope-centos9/openstack-keystone:current-podified',
    });
    expect(c['args']).not.toContain('--leader-elect');
    const [replicated] = ofKind(template('replicas=2'), 'Deployment');
    const args = (replicated!.spec!['template'] as { spec: { containers: { args: string[] }[] } }).spec
      .containers[0]!.args;
    expect(args).toContain('--leader-elect');
  });

  it('grants a ClusterRole by default and one Role per watched namespace otherwise', () => {
    const cluster = template();
    const [role] = ofKind(cluster, 'ClusterRole');
    expect(role?.rules).toContainEqual({
      apiGroups: ['keystone.openstack.org'],
      resources: ['keystoneapis/finalizers', 'keystoneservices/finalizers', 'keystoneendpoints/finalizers'],
      verbs: ['update'],
    });
    const scoped = template('watchNamespaces={a,b}');
    expect(ofKind(scoped, 'ClusterRole')).toEqual([]);
    expect(
      ofKind(scoped, 'Role')
        .map((r) => r.metadata.namespace)
        .sort(),
    ).toEqual(['a', 'b', 'operators']);
  });

  it('refuses values the schema does not know', () => {
    expect(() => template('replica=2')).toThrow(/at '': additional properties 'replica' not allowed/);
    expect(() => template('logLevel=loud')).toThrow(/at '\/logLevel': value must be one of/);
  });
});

describe('chart keystone-operator installed: the operator converges with only the chart RBAC', () => {
  let client: KubeClient;
  const releases: { name: string; ns: string }[] = [];
  const namespaces: string[] = [];

  beforeAll(async () => {
    client = adminClient();
    await installCrds(client);
  });
  afterAll(async () => {
    for (const r of releases) helm('uninstall', r.name, '--namespace', r.ns);
    for (const ns of namespaces) await client.delete(Kinds.Namespace, { name: ns }).catch(() => false);
  });

  async function installAndConverge(values: (workNs: string) => string[]): Promise<void> {
    const opNs = await newNamespace(client, 'ks-op');
    const workNs = await newNamespace(client, 'ks-work');
    namespaces.push(opNs, workNs);
    const release = `ks-chart-${releases.length}`;
    helm('install', release, CHART_DIR, '--namespace', opNs, ...values(workNs).flatMap((v) => ['--set', v]));
    releases.push({ name: release, ns: opNs });
    const sa = `${release}-keystone-operator`;
    expect(await client.get(Kinds.ServiceAccount, { name: sa, namespace: opNs })).toBeDefined();
    const impersonate = {
      user: `system:serviceaccount:${opNs}:${sa}`,
      groups: ['system:serviceaccounts', `system:serviceaccounts:${opNs}`, 'system:authenticated'],
    };
    // Impersonation is in effect: the chart grants nothing on nodes.
    const asOperator = createKubeClient(kubeConfig(), { fieldManager: 'probe', impersonate });
    await expect(asOperator.list(Kinds.Node)).rejects.toThrow(/403 Forbidden/);
    await createInputSecret(client, workNs);
    await createDatabaseService(client, workNs);
    const operator = await startOperator({
      namespaces: [workNs],
      impersonate,
      withRegistration: true,
    });
    try {
      await createKeystone(client, workNs, { replicas: 1 });
      await waitForKeystone(client, workNs, 'Ready under the chart ServiceAccount', isReady, {
        timeoutMs: 90_000,
      });
    } finally {
      await operator.stop();
    }
  }

  it('cluster-wide (ClusterRole)', async () => {
    await installAndConverge(() => []);
  });

  it('one watched namespace (Role)', async () => {
    await installAndConverge((workNs) => [`watchNamespaces={${workNs}}`]);
  });
});
