import { join } from 'node:path';
import { cacheLayout } from '@stackops/kube-env';
import { createKubeClient, Kinds, type KubeClient, serviceAccountUser } from '@stackops/lib-common/client';
import {
  chartFullname,
  createHelm,
  findRendered,
  operatorContainerProblems,
  type RenderedObject,
  renderedContainer,
  replicaSpreadProblems,
  webhookChartProblems,
} from '@stackops/lib-common/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  adminClient,
  CHART_DIR,
  installCrds,
  kubeConfig,
  newNamespace,
  PACKAGE_VERSION,
  startOperator,
} from './support/harness.js';
import {
  createDatabaseService,
  createInputSecret,
  createKeystone,
  createMemcachedService,
  isReady,
  waitForKeystone,
} from './support/keystone.js';

const helm = createHelm(join(cacheLayout().bin, 'helm'));
const template = (...set: string[]): Promise<RenderedObject[]> =>
  helm.template(CHART_DIR, { release: 'ks', namespace: 'operators', set });

describe('chart keystone-operator', () => {
  it('with replicas > 1: a PodDisruptionBudget (maxUnavailable 1) and a preferred anti-affinity on the hostname; neither with one', async () => {
    expect(replicaSpreadProblems(await template(), await template('replicas=2'))).toEqual([]);
  });

  it('passes helm lint --strict, also when watching namespaces', async () => {
    expect(await helm.lint(CHART_DIR)).toContain('0 chart(s) failed');
    expect(await helm.lint(CHART_DIR, ['watchNamespaces={a,b}'])).toContain('0 chart(s) failed');
  });

  it('renders a hardened Deployment with probes, related images and leader election when replicated', async () => {
    const c = renderedContainer(await template());
    // The chart's appVersion, kept equal to the package version by tools/release.
    expect(c.image).toBe(`ghcr.io/stackops/keystone-operator:${PACKAGE_VERSION}`);
    // Hardened securityContext, /healthz and /readyz probes, arguments the operator accepts.
    expect(operatorContainerProblems(c)).toEqual([]);
    expect(c.env).toContainEqual({
      name: 'RELATED_IMAGE_KEYSTONE_API_IMAGE_URL_DEFAULT',
      value: 'quay.io/podified-antelope-centos9/openstack-keystone:current-podified',
    });
    expect(c.args).not.toContain('--leader-elect');
    expect(renderedContainer(await template('replicas=2')).args).toContain('--leader-elect');
  });

  it('grants a ClusterRole by default and one Role per watched namespace otherwise', async () => {
    const cluster = await template();
    const [role] = findRendered(cluster, 'ClusterRole', 'ks-keystone-operator');
    expect(role?.rules).toContainEqual({
      apiGroups: ['keystone.openstack.org'],
      resources: [
        'keystoneapis/finalizers',
        'keystoneservices/finalizers',
        'keystoneendpoints/finalizers',
        'keystoneapplicationcredentials/finalizers',
      ],
      verbs: ['update'],
    });
    const scoped = await template('watchNamespaces={a,b}');
    // Only the secure-metrics reviews and the other operators' CRDs (by name) stay cluster-scoped.
    expect(findRendered(scoped, 'ClusterRole').map((r) => r.metadata.name)).toEqual([
      'ks-keystone-operator-metrics-auth',
      'ks-keystone-operator-metrics-reader',
      'ks-keystone-operator-optional-crds',
    ]);
    expect(
      findRendered(scoped, 'Role')
        .map((r) => r.metadata.namespace)
        .sort(),
    ).toEqual(['a', 'b', 'operators']);
  });

  it('webhook.enabled renders the defaulting webhook (Service, certificate, failurePolicy Ignore); off by default', async () => {
    expect(
      await webhookChartProblems(template, '/mutate-keystone-openstack-org-v1beta1-keystoneapi', 'operators'),
    ).toEqual([]);
  });

  it('refuses values the schema does not know', async () => {
    await expect(template('replica=2')).rejects.toThrow(/at '': additional properties 'replica' not allowed/);
    await expect(template('logLevel=loud')).rejects.toThrow(/at '\/logLevel': value must be one of/);
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
    for (const r of releases) await helm.uninstall(r.name, r.ns);
    for (const ns of namespaces) await client.delete(Kinds.Namespace, { name: ns }).catch(() => false);
  });

  async function installAndConverge(values: (workNs: string) => string[]): Promise<void> {
    const opNs = await newNamespace(client, 'ks-op');
    const workNs = await newNamespace(client, 'ks-work');
    namespaces.push(opNs, workNs);
    const release = `ks-chart-${releases.length}`;
    await helm.install(release, CHART_DIR, { namespace: opNs, set: values(workNs) });
    releases.push({ name: release, ns: opNs });
    const sa = chartFullname(release, 'keystone-operator');
    expect(await client.get(Kinds.ServiceAccount, { name: sa, namespace: opNs })).toBeDefined();
    const impersonate = serviceAccountUser(opNs, sa);
    // Impersonation is in effect: the chart grants nothing on nodes.
    const asOperator = createKubeClient(kubeConfig(), { fieldManager: 'probe', impersonate });
    await expect(asOperator.list(Kinds.Node)).rejects.toThrow(/403 Forbidden/);
    await createInputSecret(client, workNs);
    await createDatabaseService(client, workNs);
    await createMemcachedService(client, workNs);
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
