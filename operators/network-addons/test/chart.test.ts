import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Kinds, type KubeObject, serviceAccountUser } from '@stackops/lib-common/client';
import { parseManagerOptions } from '@stackops/lib-common/runtime';
import {
  chartFullname,
  createHelm,
  eventsIn,
  findRendered,
  operatorContainerProblems,
  type RenderedObject,
  renderedContainer,
  replicaSpreadProblems,
  VALUES_SCHEMA_REFUSAL,
  waitUntil,
} from '@stackops/lib-common/testing';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { DEFAULT_IMAGES, IMAGE_ENV_VARS } from '../src/config/images.js';
import { fillDefaults } from '../src/network/network.js';
import { selectTlsSettings } from '../src/network/tls-profile.js';
import { renderComponents } from '../src/resources/render.js';
import { renderContext } from '../src/resources/render-context.js';
import { everyComponent } from './fixtures.js';
import { CHART_DIR, setSpec, startOperator, tool, useNetworkAddonsSuite, waitAvailable } from './support.js';

/** The chart's appVersion follows the package version (tools/release keeps them in step). */
const VERSION = (
  JSON.parse(readFileSync(join(import.meta.dirname, '../package.json'), 'utf8')) as { version: string }
).version;

const helm = createHelm(tool('helm'));
const template = (...set: string[]): Promise<RenderedObject[]> =>
  helm.template(CHART_DIR, { release: 'nao', namespace: 'nao-system', set });

/** Every object all components render, as the chart's RBAC must allow. */
function renderEverything(): KubeObject[] {
  const spec = fillDefaults(everyComponent(), undefined, () => Uint8Array.from([1, 2]));
  const ctx = renderContext(spec, {
    namespace: 'x',
    images: DEFAULT_IMAGES,
    certManagerAvailable: true,
    tls: selectTlsSettings(undefined),
  });
  return renderComponents(spec, ctx).map((r) => r.object);
}

describe('chart: lint and template', () => {
  it('with replicas > 1: a PodDisruptionBudget (maxUnavailable 1) and a preferred anti-affinity on the hostname; neither with one', async () => {
    expect(replicaSpreadProblems(await template(), await template('replicas=2'))).toEqual([]);
  });

  it.each([
    [[]],
    [['replicas=2', 'operandNamespace=cnao']],
    [['rbac.create=false', 'serviceAccount.create=false']],
  ])('helm lint --strict passes with %j', async (set: string[]) => {
    expect(await helm.lint(CHART_DIR, set)).toContain('0 chart(s) failed');
  });

  it('grants exactly the kinds the templates render, and escalate/bind only on the components’ roles', async () => {
    const [role] = findRendered(await template(), 'ClusterRole', 'nao-network-addons-operator');
    const rules = role?.rules ?? [];
    const allows = (group: string, resource: string, verb: string, name?: string) =>
      rules.some(
        (r) =>
          r.apiGroups.includes(group) &&
          r.resources.includes(resource) &&
          r.verbs.includes(verb) &&
          (r.resourceNames === undefined || (name !== undefined && r.resourceNames.includes(name))),
      );
    const rendered = renderEverything();
    const plural = (o: KubeObject) =>
      ({
        ConfigMap: 'configmaps',
        ServiceAccount: 'serviceaccounts',
        Service: 'services',
        DaemonSet: 'daemonsets',
        Deployment: 'deployments',
        ClusterRole: 'clusterroles',
        ClusterRoleBinding: 'clusterrolebindings',
        Role: 'roles',
        RoleBinding: 'rolebindings',
        MutatingWebhookConfiguration: 'mutatingwebhookconfigurations',
        CustomResourceDefinition: 'customresourcedefinitions',
        NetworkPolicy: 'networkpolicies',
        Certificate: 'certificates',
        Issuer: 'issuers',
      })[o.kind ?? ''] ?? 'unknown';
    for (const o of rendered) {
      const group = o.apiVersion?.includes('/') ? o.apiVersion.split('/')[0]! : '';
      for (const verb of ['get', 'list', 'watch', 'create', 'patch']) {
        expect(allows(group, plural(o), verb, o.metadata.name), `${verb} ${o.kind}`).toBe(true);
      }
      if (o.kind !== 'CustomResourceDefinition')
        expect(allows(group, plural(o), 'delete', o.metadata.name), `delete ${o.kind}`).toBe(true);
    }
    // escalate/bind name exactly the roles the components render.
    const roleNames = (kind: string) =>
      rendered
        .filter((o) => o.kind === kind)
        .map((o) => o.metadata.name)
        .sort();
    const named = (resource: string) =>
      rules
        .find((r) => r.resources.includes(resource) && r.verbs.includes('escalate'))
        ?.resourceNames?.slice()
        .sort();
    expect(named('clusterroles')).toEqual(roleNames('ClusterRole'));
    expect(named('roles')).toEqual(roleNames('Role'));
    // Nothing beyond: no wildcard, no Secrets, no Nodes; Pods only listed and watched (Degraded's reason).
    expect(JSON.stringify(rules)).not.toMatch(/"\*"|"secrets"|"nodes"/);
    expect(rules.filter((r) => r.resources.includes('pods'))).toEqual([
      { apiGroups: [''], resources: ['pods'], verbs: ['list', 'watch'] },
    ]);
    expect(allows('networkaddonsoperator.network.kubevirt.io', 'networkaddonsconfigs', 'patch')).toBe(false);
    expect(allows('networkaddonsoperator.network.kubevirt.io', 'networkaddonsconfigs/status', 'patch')).toBe(
      true,
    );
    expect(
      allows('networkaddonsoperator.network.kubevirt.io', 'networkaddonsconfigs/finalizers', 'update'),
    ).toBe(true);
    // Events (in default, where those of the cluster-scoped CR go) and the Lease in the release namespace.
    const roles = findRendered(await template(), 'Role');
    expect(roles.map((r) => [r.metadata.namespace, r.rules?.[0]?.resources[0]]).sort()).toEqual([
      ['default', 'events'],
      ['nao-system', 'leases'],
    ]);
  });

  it('a hardened Deployment with probes, the component images and the operator environment', async () => {
    const c = renderedContainer(
      await template('replicas=2', 'relatedImages.multus=registry.local/multus:v9', 'operandNamespace=cnao'),
    );
    expect(c.image).toBe(`ghcr.io/stackops/network-addons-operator:${VERSION}`);
    expect(c.args).toContain('--leader-elect');
    expect(operatorContainerProblems(c)).toEqual([]);
    const env = Object.fromEntries(c.env.map((e) => [e.name, e.value]));
    expect(env['MULTUS_IMAGE']).toBe('registry.local/multus:v9');
    expect(env['OPERAND_NAMESPACE']).toBe('cnao');
    expect(env['OPERATOR_VERSION']).toBe(VERSION);
    expect(c.env.find((e) => e.name === 'OPERATOR_NAMESPACE')).toMatchObject({
      valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } },
    });
    for (const variable of Object.values(IMAGE_ENV_VARS)) expect(Object.keys(env)).toContain(variable);
    const ns = findRendered(await template('operandNamespace=cnao'), 'Namespace');
    expect(ns.map((n) => [n.metadata.name, n.metadata.annotations?.['helm.sh/resource-policy']])).toEqual([
      ['cnao', 'keep'],
    ]);
    expect(findRendered(await template(), 'Namespace')).toEqual([]);
  });

  it('sets the same default images as the operator', async () => {
    const values = parse(readFileSync(join(CHART_DIR, 'values.yaml'), 'utf8'));
    const env = Object.fromEntries(renderedContainer(await template()).env.map((e) => [e.name, e.value]));
    for (const [key, variable] of Object.entries(IMAGE_ENV_VARS)) {
      expect(env[variable], variable).toBe(DEFAULT_IMAGES[key as keyof typeof DEFAULT_IMAGES]);
    }
    expect(Object.keys(values.relatedImages)).toHaveLength(Object.keys(IMAGE_ENV_VARS).length);
  });

  it('the operator accepts every argument the chart passes', async () => {
    const c = renderedContainer(await template('replicas=2', 'logLevel=debug'));
    expect(operatorContainerProblems(c)).toEqual([]);
    expect(parseManagerOptions(c.args, {})).toMatchObject({ leaderElect: true, logLevel: 'debug' });
  });

  it.each([
    ['replicas=-1'],
    ['unknownValue=1'],
    ['logLevel=loud'],
    ['operandNamespace=Bad_Name'],
    ['relatedImages.multus='],
  ])('the values schema rejects %s', async (set) => {
    await expect(template(set)).rejects.toThrow(VALUES_SCHEMA_REFUSAL);
  });
});

describe('chart: install and converge under its RBAC', () => {
  const nao = useNetworkAddonsSuite('nao-chart', {
    operator: false,
    cleanup: async () => {
      try {
        await helm.uninstall(release(), nao.ns);
      } finally {
        await nao.client.delete(Kinds.Namespace, { name: `${nao.ns}-operands` });
      }
    },
  });
  const release = () => `nao-${nao.ns.slice(-6)}`;

  it('helm install, then the operator as the chart’s ServiceAccount deploys every component', async () => {
    const operands = `${nao.ns}-operands`;
    await helm.install(release(), CHART_DIR, {
      namespace: nao.ns,
      set: [`operandNamespace=${operands}`],
      waitTimeout: '90s',
    });
    const sa = chartFullname(release(), 'network-addons-operator');
    expect(await nao.client.get(Kinds.ServiceAccount, { namespace: nao.ns, name: sa })).toBeDefined();
    expect(await nao.client.get(Kinds.Namespace, { name: operands })).toBeDefined();

    const op = await startOperator({
      namespace: nao.ns,
      operandNamespace: operands,
      impersonate: serviceAccountUser(nao.ns, sa),
    });
    try {
      // The operator really runs as the ServiceAccount: what the chart does not grant is refused.
      await expect(op.manager.client.list(Kinds.Secret, { namespace: nao.ns })).rejects.toMatchObject({
        code: 403,
      });
      await setSpec(nao.client, everyComponent());
      const cr = await waitAvailable(nao.client, 90_000);
      expect(cr.status?.containers?.length).toBeGreaterThan(10);
      // Removal under the same RBAC.
      await setSpec(nao.client, { linuxBridge: {} });
      await waitAvailable(nao.client);
      const { items } = await nao.client.list(Kinds.DaemonSet, { namespace: operands });
      expect(items.map((d) => d.metadata.name).sort()).toEqual([
        'bridge-marker',
        'kube-cni-linux-bridge-plugin',
      ]);
      // Events follow a pass's writes without being waited for.
      await waitUntil('an Available Event for the NetworkAddonsConfig', async () =>
        (await eventsIn(nao.client, 'default')).some(
          (e) => e.involvedObject?.uid === cr.metadata.uid && e.reason === 'Available',
        ),
      );
    } finally {
      await op.stop();
    }
  });
});
