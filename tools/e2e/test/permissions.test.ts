import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { repoRoot } from './support.js';

/**
 * Each chart's RBAC, proven least-privilege: the chart's RBAC objects (only those: no pod runs) are
 * applied to the cluster, and `kubectl auth can-i --list` as the chart's ServiceAccount must show
 * exactly the permissions below (beyond what every authenticated identity has), in a namespace the
 * operator serves, in one it does not, and in its own. The in-cluster tests (operator-charts,
 * umbrella, openstack) run the same charts for real, which proves the list is also sufficient.
 */

const execFileP = promisify(execFile);
const kubeconfigPath = inject('kubeconfigPath');
const kubectlBin = inject('kubectl');
const helmBin = inject('helm');

async function run(bin: string, args: string[], input?: string): Promise<{ code: number; stdout: string }> {
  const child = execFileP(bin, args, {
    env: { ...process.env, KUBECONFIG: kubeconfigPath },
    maxBuffer: 16 * 1024 * 1024,
    timeout: 120_000,
  });
  if (input !== undefined) {
    child.child.stdin?.end(input);
  }
  try {
    const { stdout } = await child;
    return { code: 0, stdout };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string; message: string };
    if (typeof e.code === 'number' && e.code === 1 && e.stdout !== undefined && /^(no|yes)\b/.test(e.stdout))
      return { code: 1, stdout: e.stdout };
    throw new Error(`${bin.split('/').pop()} ${args.join(' ')} failed:\n${e.stderr || e.message}`);
  }
}

const RBAC_KINDS = new Set(['ServiceAccount', 'Role', 'RoleBinding', 'ClusterRole', 'ClusterRoleBinding']);

/** Renders a chart and applies only its ServiceAccount and RBAC objects; returns what it applied. */
async function applyRbac(release: string, chart: string, namespace: string, set: string[]): Promise<string> {
  const { stdout } = await run(helmBin, [
    'template',
    release,
    join(repoRoot, 'charts', chart),
    '-n',
    namespace,
    ...set.flatMap((s) => ['--set', s]),
  ]);
  const docs = parseAllDocuments(stdout)
    .map((d) => d.toJS() as { kind?: string } | null)
    .filter((o): o is { kind: string } => o !== null && RBAC_KINDS.has(o.kind ?? ''));
  const manifest = docs.map((d) => JSON.stringify(d)).join('\n');
  await run(kubectlBin, ['apply', '--server-side', '--field-manager=permissions-test', '-f', '-'], manifest);
  return manifest;
}

/** `resource|resourceName|verb` (resource as can-i prints it: `plural.group[/subresource]`, `/path` for URLs). */
type Grant = string;

/** Every permission `auth can-i --list` shows for a subject in a namespace, one string per verb and name. */
async function grants(as: string, namespace: string): Promise<Set<Grant>> {
  const { stdout } = await run(kubectlBin, ['auth', 'can-i', '--list', `--as=${as}`, '-n', namespace]);
  const out = new Set<Grant>();
  const list = (cell: string) =>
    cell
      .replace(/^\[|\]$/g, '')
      .split(' ')
      .filter((x) => x !== '');
  for (const line of stdout.split('\n').slice(1)) {
    if (!line.trim()) continue;
    // Columns are padded with spaces; the first (resource) is blank for non-resource URLs.
    const m = /^(\S*)\s+(\[[^\]]*\])\s+(\[[^\]]*\])\s+(\[[^\]]*\])\s*$/.exec(line);
    if (!m) throw new Error(`unexpected can-i line: ${line}`);
    const [, resource = '', urls = '', names = '', verbs = ''] = m;
    const subjects = resource ? [resource] : list(urls);
    const named = list(names);
    for (const s of subjects)
      for (const v of list(verbs)) for (const n of named.length ? named : ['']) out.add(`${s}|${n}|${v}`);
  }
  return out;
}

/** Expands `resources × verbs (× names)` into grants. */
function rule(resources: string[], verbs: string[], names: string[] = ['']): Grant[] {
  return resources.flatMap((r) => verbs.flatMap((v) => names.map((n) => `${r}|${n}|${v}`)));
}

const CRUD = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'];
const READ = ['get', 'list', 'watch'];
// Core v1 Events (the recorder's API).
const events = rule(['events'], ['create', 'patch']);
const lease = (operator: string) => [
  ...rule(['leases.coordination.k8s.io'], ['create']),
  ...rule(['leases.coordination.k8s.io'], ['get', 'update'], [`${operator}-leader`]),
];
/** Secure metrics: who is this token, and may it get /metrics. Cluster-scoped kinds. */
const metricsAuth = rule(
  ['tokenreviews.authentication.k8s.io', 'subjectaccessreviews.authorization.k8s.io'],
  ['create'],
);
const anyuid = rule(['securitycontextconstraints.security.openshift.io'], ['use'], ['anyuid']);

/** mariadb-operator mode (ADR 0013): read the Galera, create and patch the service's database and account. */
const mariadb = [
  ...rule(['galeras.mariadb.openstack.org'], ['get', 'list', 'watch']),
  ...rule(
    ['mariadbdatabases.mariadb.openstack.org', 'mariadbaccounts.mariadb.openstack.org'],
    ['get', 'list', 'watch', 'create', 'patch'],
  ),
];
/**
 * Both OpenStack API operators: the API's PodDisruptionBudget, the Role and RoleBinding of its pods'
 * ServiceAccount (anyuid), listing pods, reading the NADs of networkAttachments, and the database.
 */
const apiPodsAndDatabase = [
  ...rule(['poddisruptionbudgets.policy'], CRUD),
  ...rule(['roles.rbac.authorization.k8s.io', 'rolebindings.rbac.authorization.k8s.io'], CRUD),
  ...anyuid,
  ...rule(['pods'], ['list']),
  ...rule(['network-attachment-definitions.k8s.cni.cncf.io'], READ),
  ...mariadb,
];
/** infra-operator's Topology named by topologyRef: read, watched, and carries the operator's finalizer. */
const topologies = rule(['topologies.topology.openstack.org'], ['get', 'list', 'watch', 'patch']);
/**
 * The CRDs of the other operators' kinds it watches (ADR 0027), by name only: list/watch with
 * `fieldSelector=metadata.name=<crd>` while absent. Cluster-scoped, so also with watchNamespaces.
 */
const crds = (names: string[]) =>
  rule(['customresourcedefinitions.apiextensions.k8s.io'], ['list', 'watch'], names);
const mariadbCrds = [
  'galeras.mariadb.openstack.org',
  'mariadbaccounts.mariadb.openstack.org',
  'mariadbdatabases.mariadb.openstack.org',
];
const OPTIONAL_CRDS: Record<string, Grant[]> = {
  keystone: crds([
    ...mariadbCrds,
    'memcacheds.memcached.openstack.org',
    'topologies.topology.openstack.org',
    'transporturls.rabbitmq.openstack.org',
    // its own, to report a replaced schema (ADR 0037)
    'keystoneapis.keystone.openstack.org',
    'keystoneapplicationcredentials.keystone.openstack.org',
    'keystoneendpoints.keystone.openstack.org',
    'keystoneservices.keystone.openstack.org',
  ]),
  placement: crds([
    ...mariadbCrds,
    'topologies.topology.openstack.org',
    'placementapis.placement.openstack.org',
  ]),
  sip: [],
};
const keystone = 'keystone.openstack.org';
const keystoneKinds = [
  'keystoneapis',
  'keystoneservices',
  'keystoneendpoints',
  'keystoneapplicationcredentials',
];

/** What each operator may do where it works; each line is explained in its chart README's "Permissions". */
const NAMESPACED: Record<string, Grant[]> = {
  keystone: [
    ...rule(
      keystoneKinds.map((k) => `${k}.${keystone}`),
      ['get', 'list', 'watch', 'patch', 'update'],
    ),
    ...rule(
      keystoneKinds.map((k) => `${k}.${keystone}/status`),
      ['get', 'patch', 'update'],
    ),
    ...rule(
      keystoneKinds.map((k) => `${k}.${keystone}/finalizers`),
      ['update'],
    ),
    ...rule(['secrets', 'configmaps', 'services', 'serviceaccounts'], CRUD),
    ...rule(['deployments.apps', 'jobs.batch', 'cronjobs.batch'], CRUD),
    ...apiPodsAndDatabase,
    ...rule(['memcacheds.memcached.openstack.org'], ['get', 'list', 'watch', 'patch']),
    ...topologies,
    ...rule(['transporturls.rabbitmq.openstack.org'], ['get', 'list', 'watch', 'create', 'patch', 'delete']),
    ...events,
  ],
  placement: [
    ...rule(['placementapis.placement.openstack.org'], ['get', 'list', 'watch', 'patch', 'update']),
    ...rule(['placementapis.placement.openstack.org/status'], ['get', 'patch', 'update']),
    ...rule(['placementapis.placement.openstack.org/finalizers'], ['update']),
    ...rule([`keystoneapis.${keystone}`], READ),
    ...rule([`keystoneservices.${keystone}`, `keystoneendpoints.${keystone}`], CRUD),
    ...rule(['secrets', 'services', 'serviceaccounts'], CRUD),
    ...rule(['deployments.apps', 'jobs.batch'], CRUD),
    ...apiPodsAndDatabase,
    ...topologies,
    ...events,
  ],
  sip: [
    ...rule(['sipclusters.airship.airshipit.org'], ['get', 'list', 'watch', 'patch']),
    ...rule(['sipclusters.airship.airshipit.org/status'], ['get', 'patch']),
    ...rule(['sipclusters.airship.airshipit.org/finalizers'], ['update']),
    ...rule(
      ['secrets', 'configmaps', 'services', 'deployments.apps'],
      ['get', 'list', 'watch', 'create', 'patch', 'delete'],
    ),
    ...rule(['baremetalhosts.metal3.io'], ['get', 'list', 'watch', 'patch']),
    ...events,
  ],
};

const NETWORK_ADDONS_CLUSTER_ROLES = [
  'multus',
  'dynamic-networks-controller',
  'bridge-marker-cr',
  'kubemacpool-manager-role',
  'nmstate-handler',
  'ovs-cni-marker-cr',
  'secondary',
  'kubevirt-ipam-controller-manager-role',
];
const NETWORK_ADDONS_CLUSTER_ROLE_BINDINGS = [
  'multus',
  'dynamic-networks-controller',
  'bridge-marker-crb',
  'kubemacpool-manager-rolebinding',
  'nmstate-handler',
  'ovs-cni-marker-crb',
  'secondary',
  'kubevirt-ipam-controller-manager-rolebinding',
];
const rbacGroup = (r: string) => `${r}.rbac.authorization.k8s.io`;
/** network-addons works cluster-wide (its NetworkAddonsConfig is cluster-scoped). */
const NETWORK_ADDONS: Grant[] = [
  ...rule(['networkaddonsconfigs.networkaddonsoperator.network.kubevirt.io'], READ),
  ...rule(['networkaddonsconfigs.networkaddonsoperator.network.kubevirt.io/status'], ['get', 'patch']),
  ...rule(['networkaddonsconfigs.networkaddonsoperator.network.kubevirt.io/finalizers'], ['update']),
  // Its components' pods, read only (a failing container makes the config Degraded).
  ...rule(['pods'], ['list', 'watch']),
  ...rule(
    ['configmaps', 'serviceaccounts', 'services', 'daemonsets.apps', 'deployments.apps'],
    ['get', 'list', 'watch', 'create', 'patch', 'delete'],
  ),
  ...rule(['clusterroles', 'clusterrolebindings', 'roles', 'rolebindings'].map(rbacGroup), [
    'list',
    'watch',
    'create',
  ]),
  ...rule(
    [rbacGroup('clusterroles')],
    ['get', 'patch', 'delete', 'escalate', 'bind'],
    NETWORK_ADDONS_CLUSTER_ROLES,
  ),
  ...rule(
    [rbacGroup('clusterrolebindings')],
    ['get', 'patch', 'delete'],
    NETWORK_ADDONS_CLUSTER_ROLE_BINDINGS,
  ),
  ...rule(
    [rbacGroup('roles')],
    ['get', 'patch', 'delete', 'escalate', 'bind'],
    ['kubevirt-ipam-controller-leader-election-role'],
  ),
  ...rule(
    [rbacGroup('rolebindings')],
    ['get', 'patch', 'delete'],
    ['kubevirt-ipam-controller-leader-election-rolebinding'],
  ),
  ...rule(
    [
      'mutatingwebhookconfigurations.admissionregistration.k8s.io',
      'networkpolicies.networking.k8s.io',
      'certificates.cert-manager.io',
      'issuers.cert-manager.io',
    ],
    ['get', 'list', 'watch', 'create', 'patch', 'delete'],
  ),
  ...rule(['customresourcedefinitions.apiextensions.k8s.io'], ['get', 'list', 'watch', 'create', 'patch']),
];

const created: { namespaces: string[]; manifests: string[] } = { namespaces: [], manifests: [] };
afterAll(async () => {
  for (const m of created.manifests)
    await run(kubectlBin, ['delete', '--ignore-not-found', '--wait=false', '-f', '-'], m);
  if (created.namespaces.length)
    await run(kubectlBin, [
      'delete',
      'namespace',
      '--ignore-not-found',
      '--wait=false',
      ...created.namespaces,
    ]);
});

async function namespace(name: string): Promise<string> {
  await run(kubectlBin, ['create', 'namespace', name]).catch(() => undefined);
  created.namespaces.push(name);
  return name;
}

/** What the subject has beyond a ServiceAccount with no bindings at all (discovery, self reviews...). */
async function extraGrants(as: string, ns: string): Promise<string[]> {
  const [mine, base] = await Promise.all([grants(as, ns), grants(`system:serviceaccount:${ns}:default`, ns)]);
  return [...mine].filter((g) => !base.has(g)).sort();
}

const sorted = (g: Grant[]) => [...new Set(g)].sort();

async function canI(as: string, args: string[]): Promise<boolean> {
  const { stdout } = await run(kubectlBin, ['auth', 'can-i', ...args, `--as=${as}`]);
  return stdout.trim() === 'yes';
}

describe('chart RBAC is exactly the documented list', () => {
  for (const operator of ['keystone', 'placement', 'sip'] as const) {
    it(`${operator}-operator: cluster-wide, and with watchNamespaces only Roles in those namespaces`, async () => {
      const release = await namespace(`perm-${operator}`);
      const served = await namespace(`perm-${operator}-served`);
      const other = await namespace(`perm-${operator}-other`);
      const expected = NAMESPACED[operator] ?? [];
      // Cluster-scoped grants, the same in every namespace and with watchNamespaces.
      const clusterWide = [...metricsAuth, ...(OPTIONAL_CRDS[operator] ?? [])];
      const as = `system:serviceaccount:${release}:${operator}-operator`;

      // Cluster-wide (the default): the same everywhere, plus the Lease in its own namespace.
      created.manifests.push(await applyRbac(`${operator}-operator`, `${operator}-operator`, release, []));
      expect(await extraGrants(as, served)).toEqual(sorted([...expected, ...clusterWide]));
      expect(await extraGrants(as, release)).toEqual(
        sorted([...expected, ...clusterWide, ...lease(`${operator}-operator`)]),
      );
      expect(await canI(as, ['create', 'pods', '-n', 'kube-system'])).toBe(false);
      expect(await canI(as, ['get', 'nodes'])).toBe(false);
      expect(await canI(as, ['create', 'clusterrolebindings'])).toBe(false);
      expect(await canI(as, ['escalate', 'roles', '-n', served])).toBe(false);
      expect(await canI(as, ['bind', 'clusterroles'])).toBe(false);
      expect(await canI(as, ['impersonate', 'serviceaccounts'])).toBe(false);

      // watchNamespaces: Roles in the served namespace only; elsewhere nothing but the metrics reviews.
      const manifest = await applyRbac(`${operator}-operator`, `${operator}-operator`, release, [
        `watchNamespaces={${served}}`,
      ]);
      created.manifests.push(manifest);
      const kinds = manifest
        .split('\n')
        .map((l) => JSON.parse(l) as { kind: string; metadata: { name: string } });
      const clusterRoles = kinds.filter((k) => k.kind === 'ClusterRole').map((k) => k.metadata.name);
      expect(clusterRoles.sort()).toEqual(
        [
          `${operator}-operator-metrics-auth`,
          `${operator}-operator-metrics-reader`,
          ...(OPTIONAL_CRDS[operator]?.length ? [`${operator}-operator-optional-crds`] : []),
        ].sort(),
      );
      // The cluster-wide grant of the first install goes, as `helm upgrade` would remove it.
      await run(kubectlBin, [
        'delete',
        'clusterrolebinding',
        `${operator}-operator`,
        `${operator}-operator-manager`,
        '--ignore-not-found',
      ]);
      expect(await extraGrants(as, served)).toEqual(sorted([...expected, ...clusterWide]));
      expect(await extraGrants(as, other)).toEqual(sorted(clusterWide));
      expect(await canI(as, ['list', 'secrets', '-n', other])).toBe(false);
      expect(await canI(as, ['list', 'secrets', '--all-namespaces'])).toBe(false);
      expect(await canI(as, ['get', 'secrets', '-n', 'kube-system'])).toBe(false);
    });
  }

  it('network-addons-operator: escalate and bind only on the ClusterRoles it renders, no Secrets, pods read only', async () => {
    const release = await namespace('perm-network-addons');
    const served = await namespace('perm-network-addons-any');
    const as = `system:serviceaccount:${release}:network-addons-operator`;
    created.manifests.push(
      await applyRbac('network-addons-operator', 'network-addons-operator', release, []),
    );
    expect(await extraGrants(as, served)).toEqual(sorted([...NETWORK_ADDONS, ...metricsAuth]));
    expect(await extraGrants(as, release)).toEqual(
      sorted([...NETWORK_ADDONS, ...metricsAuth, ...lease('network-addons-operator')]),
    );
    // Its Events about the cluster-scoped NetworkAddonsConfig land in `default`.
    expect(await extraGrants(as, 'default')).toEqual(sorted([...NETWORK_ADDONS, ...metricsAuth, ...events]));
    for (const role of [
      'admin',
      'cluster-admin',
      'edit',
      'system:controller:clusterrole-aggregation-controller',
    ]) {
      expect(await canI(as, ['escalate', `clusterroles/${role}`])).toBe(false);
      expect(await canI(as, ['bind', `clusterroles/${role}`])).toBe(false);
      expect(await canI(as, ['patch', `clusterroles/${role}`])).toBe(false);
      expect(await canI(as, ['delete', `clusterroles/${role}`])).toBe(false);
    }
    expect(await canI(as, ['patch', 'clusterrolebindings/cluster-admin'])).toBe(false);
    expect(await canI(as, ['escalate', 'clusterroles/multus'])).toBe(true);
    expect(await canI(as, ['get', 'secrets', '-n', 'kube-system'])).toBe(false);
    expect(await canI(as, ['create', 'pods', '-n', 'kube-system'])).toBe(false);
  });
});

describe('the umbrella chart with operators.mode combined', () => {
  it("gives its one ServiceAccount exactly the union of the four operator charts' grants, and renders no other", async () => {
    const release = await namespace('perm-combined');
    const served = await namespace('perm-combined-served');
    await run(helmBin, ['dependency', 'build', join(repoRoot, 'charts/stackops'), '--skip-refresh']);
    const manifest = await applyRbac('stackops', 'stackops', release, ['global.operators.mode=combined']);
    created.manifests.push(manifest);
    const accounts = manifest
      .split('\n')
      .map((l) => JSON.parse(l) as { kind: string; metadata: { name: string } })
      .filter((o) => o.kind === 'ServiceAccount')
      .map((o) => o.metadata.name);
    expect(accounts).toEqual(['stackops-operators']);
    const as = `system:serviceaccount:${release}:stackops-operators`;
    const union = [
      ...Object.values(NAMESPACED).flat(),
      ...Object.values(OPTIONAL_CRDS).flat(),
      ...NETWORK_ADDONS,
      ...metricsAuth,
    ];
    const leases = ['keystone', 'placement', 'network-addons', 'sip'].flatMap((o) => lease(`${o}-operator`));
    expect(await extraGrants(as, served)).toEqual(sorted(union));
    expect(await extraGrants(as, release)).toEqual(sorted([...union, ...leases]));
    expect(await canI(as, ['create', 'pods', '-n', 'kube-system'])).toBe(false);
    expect(await canI(as, ['get', 'nodes'])).toBe(false);
    expect(await canI(as, ['impersonate', 'serviceaccounts'])).toBe(false);
    expect(await canI(as, ['escalate', 'clusterroles/cluster-admin'])).toBe(false);
  });
});
