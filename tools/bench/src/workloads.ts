import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type KindRef, Kinds, type KubeObject, type RestKubeClient } from '@stackops/lib-common/client';
import { PAUSED_ANNOTATION, PAUSED_CONDITION, PAUSED_MESSAGE } from '@stackops/lib-common/pipeline';
import { readCrds } from '@stackops/lib-common/testing';
import type { SubjectSpec } from './subject.js';

/**
 * What the bench does with each operator's kind on the control plane: the CRDs, the prerequisites
 * of one instance, the instance, when it counts as done, and one change. The objects are those of
 * the operators' own tests; a Go operator of the same kinds is measured with the same workload.
 */
export interface Workload {
  /** operators/<dir>, and the chart charts/<dir>-operator (charts/stackops' `operators` for combined). */
  dir: OperatorDir;
  /** The CRDs the operator needs (its chart's, plus those of kinds it reads). */
  crds(): KubeObject[];
  /** Cluster-wide prerequisites, once per cluster (e.g. the operator's own namespace). */
  setup?(client: RestKubeClient): Promise<void>;
  /** The instance's namespace, or undefined for a cluster-scoped singleton (no 200-instance scenario). */
  namespaced: boolean;
  /** Prerequisites of one instance in its namespace (Secrets, Services…): not measured. */
  prepare(client: RestKubeClient, ns: string): Promise<void>;
  apply(client: RestKubeClient, ns: string): Promise<void>;
  /** True when the instance is done (Ready/Available for its current generation). May play a missing controller's part. */
  done(client: RestKubeClient, ns: string): Promise<boolean>;
  /** One change of the spec (then `done` again); absent: no one-change scenario. */
  change?(client: RestKubeClient, ns: string): Promise<void>;
  /** The namespaces whose instance is done, in one request (the scale scenario polls this, not 200 GETs). */
  doneNamespaces?(client: RestKubeClient): Promise<Set<string>>;
  /**
   * The instance's kind and when one object of it is done, seen on a watch: apply → done ends when
   * the event showing it done arrives (as the control plane's spans end: a poll would add up to its
   * interval and a GET), and the scale scenario watches that kind instead of polling (a list of 200
   * instances every 500 ms is load on the API server it measures).
   */
  watchDone?: DoneWatch;
  /** Several instances of different kinds (combined): each one's watch; default `[watchDone]`. */
  doneWatches?: readonly DoneWatch[];
  /**
   * What the control plane alone must do for one instance, as stages run one after the other
   * (each stage's Jobs complete / Deployments available before the next): the baseline of the
   * scale scenario, created by the bench without any operator.
   */
  controlPlaneStages?(ns: string): { kind: KindRef; object: KubeObject }[][];
  /** The instance with every input at the CRD's maxima (memory at the bounds; issue 14). */
  applyMaxima?(client: RestKubeClient, ns: string): Promise<void>;
  /** The resource of the instance's kind (e.g. `keystoneapis`): frames each instance in the scale timeline. */
  primaryResource?: string;
  /** Where the control plane's own work is (Jobs, Deployments), for the control-plane-imposed time. */
  controlPlaneKinds: readonly KindRef[];
  /** Our operator's process (env and flags the chart would give it), from its bundle or dist/main.js. */
  subject(entry?: Entry): SubjectSpec;
}

/** An instance's kind, and when an object of it is done. */
export interface DoneWatch {
  kind: KindRef;
  done(obj: KubeObject): boolean;
}

/** `bundle`: operators/<x>/bundle/main.mjs, what the image runs; `dist`: dist/main.js (tsc output). */
export type Entry = 'bundle' | 'dist';
export type OperatorDir = 'keystone' | 'placement' | 'network-addons' | 'sip' | 'combined';
/** `combined`: the four in one process (operators/combined, the umbrella chart's default mode). */
export const operatorDirs: readonly OperatorDir[] = [
  'keystone',
  'placement',
  'network-addons',
  'sip',
  'combined',
];

const repoRoot = resolve(import.meta.dirname, '../../..');
const chartCrds = (dir: OperatorDir) => {
  const crdDir = join(repoRoot, 'charts', `${dir}-operator`, 'crds');
  return readdirSync(crdDir)
    .filter((f) => f.endsWith('.yaml'))
    .flatMap((f) => readCrds(join(crdDir, f)));
};
const templateCrds = (dir: OperatorDir) => {
  const templates = join(repoRoot, 'charts', `${dir}-operator`, 'templates');
  return readdirSync(templates)
    .filter((f) => f.startsWith('crd-'))
    .flatMap((f) => readCrds(join(templates, f), { dropTemplateLines: true }));
};
const nadCrd = () =>
  readCrds(join(repoRoot, 'operators/keystone/test/fixtures/crds/network-attachment-definition.yaml'));

/**
 * Our operator as a local process: node on its bundle (what its image runs; dist/main.js when
 * there is no bundle) with the chart's node flags, probes and metrics on free loopback ports.
 * BENCH_NODE_FLAGS adds node flags (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`).
 */
const ourOperator = (dir: OperatorDir, entry?: Entry, env: Record<string, string> = {}): SubjectSpec => ({
  name: `${dir}-operator`,
  command: [process.execPath, ...nodeFlags(dir), entryPoint(dir, entry), ...operatorArgs],
  // NODE_ENV as the images set it.
  env: { NODE_ENV: 'production', LOG_LEVEL: process.env['BENCH_LOG_LEVEL'] ?? 'info', ...env },
  userAgent: /^stackops\//,
});

const operatorArgs = [
  '--kubeconfig={kubeconfig}',
  '--health-probe-bind-address=127.0.0.1:{probePort}',
  '--metrics-bind-address=127.0.0.1:{metricsPort}',
];

/**
 * The node flags an operator ships with: its chart's `nodeOptions` (the images add none), then
 * BENCH_NODE_FLAGS. BENCH_CHART_NODE_OPTIONS=0 leaves the chart's out (to measure without them).
 */
export function nodeFlags(dir: OperatorDir): string[] {
  const shipped = process.env['BENCH_CHART_NODE_OPTIONS'] === '0' ? [] : [chartNodeOptions(dir)];
  return [...shipped, process.env['BENCH_NODE_FLAGS'] ?? ''].flatMap((s) => s.split(' ').filter(Boolean));
}

/**
 * The values of the chart that runs `dir`: charts/<dir>-operator/values.yaml, or for the combined
 * process the umbrella chart's top-level `operators:` block, unindented.
 */
function chartValues(dir: OperatorDir): string {
  if (dir !== 'combined')
    return readFileSync(join(repoRoot, 'charts', `${dir}-operator`, 'values.yaml'), 'utf8');
  const lines = readFileSync(join(repoRoot, 'charts', 'stackops', 'values.yaml'), 'utf8').split('\n');
  const block = lines.slice(lines.indexOf('operators:') + 1);
  const end = block.findIndex((l) => l !== '' && !l.startsWith(' ') && !l.startsWith('#'));
  return block
    .slice(0, end < 0 ? undefined : end)
    .map((l) => l.replace(/^ {2}/, ''))
    .join('\n');
}

/** The `nodeOptions:` line of charts/<dir>-operator/values.yaml. */
export function chartNodeOptions(dir: OperatorDir): string {
  const values = chartValues(dir);
  return (
    /^nodeOptions:[ \t]*(.*)$/m
      .exec(values)?.[1]
      ?.replace(/^["']|["']$/g, '')
      .trim() ?? ''
  );
}

/** `resources.limits.memory` of charts/<dir>-operator/values.yaml, MiB (undefined: none set). */
export function chartMemoryLimitMiB(dir: OperatorDir): number | undefined {
  const values = chartValues(dir);
  const m =
    /^resources:\n(?:[ \t]+.*\n)*?[ \t]+limits:\n(?:[ \t]+.*\n)*?[ \t]+memory:[ \t]*(\d+)(Mi|Gi)/m.exec(
      values,
    );
  return m ? Number(m[1]) * (m[2] === 'Gi' ? 1024 : 1) : undefined;
}

/**
 * The floor under any Node operator: node with the same flags answering /readyz and doing nothing
 * else. Its RSS and spawn → ready are printed next to the targets, so the margin shows.
 */
export const bareNode = (dir: OperatorDir): SubjectSpec => ({
  name: 'bare node',
  command: [
    process.execPath,
    ...nodeFlags(dir),
    '-e',
    "require('node:http').createServer((q,r)=>r.end('ok')).listen({probePort},'127.0.0.1')",
  ],
});

/** Our operator's own code and nothing else: node with its flags on its entry point, `--help`. */
export const codeLoaded = (dir: OperatorDir): string[] => [
  process.execPath,
  ...nodeFlags(dir),
  entryPoint(dir),
  '--help',
];

function entryPoint(dir: OperatorDir, entry?: Entry): string {
  const bundle = join(repoRoot, 'operators', dir, 'bundle', 'main.mjs');
  const dist = join(repoRoot, 'operators', dir, 'dist', 'main.js');
  if (entry) return entry === 'bundle' ? bundle : dist;
  return existsSync(bundle) ? bundle : dist;
}

const kind = (group: string, version: string, k: string, plural: string, namespaced = true): KindRef => ({
  group,
  version,
  kind: k,
  plural,
  namespaced,
});
export const KeystoneAPIKind = kind('keystone.openstack.org', 'v1beta1', 'KeystoneAPI', 'keystoneapis');
const KeystoneServiceKind = kind('keystone.openstack.org', 'v1beta1', 'KeystoneService', 'keystoneservices');
const KeystoneEndpointKind = kind(
  'keystone.openstack.org',
  'v1beta1',
  'KeystoneEndpoint',
  'keystoneendpoints',
);
const PlacementAPIKind = kind('placement.openstack.org', 'v1beta1', 'PlacementAPI', 'placementapis');
const NetworkAddonsConfigKind = kind(
  'networkaddonsoperator.network.kubevirt.io',
  'v1',
  'NetworkAddonsConfig',
  'networkaddonsconfigs',
  false,
);
const SIPClusterKind = kind('airship.airshipit.org', 'v1', 'SIPCluster', 'sipclusters');
const BareMetalHostKind = kind('metal3.io', 'v1alpha1', 'BareMetalHost', 'baremetalhosts');

interface Condition {
  type: string;
  status: string;
}
type WithStatus = KubeObject & { status?: { conditions?: Condition[]; observedGeneration?: number } };

/** `type` is True and the status is about the current generation. */
const conditionTrue = (obj: WithStatus | undefined, type: string) =>
  !!obj &&
  obj.status?.conditions?.some((c) => c.type === type && c.status === 'True') === true &&
  (obj.status?.observedGeneration === undefined || obj.status.observedGeneration === obj.metadata.generation);

/**
 * An instance done when its condition `type` is True: the poll's GET (`done`) and the watch's test
 * (`watchDone`) from one rule. A namespaced instance is named `name` in the run's namespace.
 */
const doneWhen = (k: KindRef, name: string, type: string) => ({
  done: async (client: RestKubeClient, ns?: string) =>
    conditionTrue(await client.get<WithStatus>(k, { name, namespace: ns }), type),
  watchDone: { kind: k, done: (o: KubeObject) => conditionTrue(o as WithStatus, type) },
});

const secret = (client: RestKubeClient, ns: string, name: string, stringData: Record<string, string>) =>
  client.create(Kinds.Secret, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace: ns },
    stringData,
  } as KubeObject);

// A plain database Service (Job mode, ADR 0013). mariadb-operator's labels here, without its Galera
// CR, made every pass of every instance ask the API server for that Galera (2251 404s at 200).
const databaseService = (client: RestKubeClient, ns: string) =>
  client.create(Kinds.Service, {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'openstack', namespace: ns },
    spec: { selector: { app: 'mariadb' }, ports: [{ name: 'mysql', port: 3306 }] },
  } as KubeObject);

// The cache a KeystoneAPI's memcachedInstance names by default: a plain Service of that name
// (no infra-operator Memcached CR), as keystone's own tests make it.
const memcachedService = (client: RestKubeClient, ns: string) =>
  client.create(Kinds.Service, {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'memcached', namespace: ns },
    spec: { selector: { app: 'memcached' }, ports: [{ name: 'memcached', port: 11211 }] },
  } as KubeObject);

const readyCondition = () => ({
  type: 'Ready',
  status: 'True',
  reason: 'Ready',
  message: 'Setup complete',
  lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
});

/**
 * What keystone-operator itself writes on an object paused with `openstack.org/paused` (ADR 0036):
 * with it already in the played status, the real keystone-operator (the combined process) finds
 * nothing to write on the objects the bench plays.
 */
const pausedCondition = () => ({
  type: PAUSED_CONDITION,
  status: 'True',
  reason: PAUSED_CONDITION,
  message: PAUSED_MESSAGE,
  lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
});

const markReady = (
  client: RestKubeClient,
  k: KindRef,
  ns: string,
  name: string,
  generation: number,
  extra = {},
  paused = false,
) =>
  client.patch(
    k,
    { name, namespace: ns },
    {
      status: {
        ...extra,
        observedGeneration: generation,
        conditions: paused ? [readyCondition(), pausedCondition()] : [readyCondition()],
      },
    },
    'merge',
    { subresource: 'status' },
  );

const pause = (client: RestKubeClient, k: KindRef, ns: string, name: string) =>
  client.patch(
    k,
    { name, namespace: ns },
    { metadata: { annotations: { [PAUSED_ANNOTATION]: '' } } },
    'merge',
  );

const keystoneDone = doneWhen(KeystoneAPIKind, 'keystone', 'Ready');
const keystone: Workload = {
  dir: 'keystone',
  namespaced: true,
  crds: () => [...chartCrds('keystone'), ...nadCrd()],
  prepare: async (client, ns) => {
    await secret(client, ns, 'osp-secret', {
      AdminPassword: '12345678',
      KeystoneDatabasePassword: 'keystone-db-pw',
      DbRootPassword: 'root-pw',
    });
    await databaseService(client, ns);
    await memcachedService(client, ns);
  },
  apply: async (client, ns) => {
    await client.create(KeystoneAPIKind, {
      apiVersion: 'keystone.openstack.org/v1beta1',
      kind: 'KeystoneAPI',
      metadata: { name: 'keystone', namespace: ns },
      spec: { secret: 'osp-secret' },
    } as KubeObject);
  },
  ...keystoneDone,
  change: async (client, ns) => {
    await client.patch(
      KeystoneAPIKind,
      { name: 'keystone', namespace: ns },
      { spec: { replicas: 2 } },
      'merge',
    );
  },
  doneNamespaces: async (client) => {
    const list = await client.list<WithStatus>(KeystoneAPIKind);
    return new Set(list.items.filter(keystoneDone.watchDone.done).map((o) => o.metadata.namespace ?? ''));
  },
  // Every object one KeystoneAPI brings to the control plane, in the operator's stages: the
  // instance itself and db-create; the config and fernet Secrets, the RBAC and db-sync; the two
  // Services and bootstrap; the API Deployment, the rotation CronJob and the client config. The
  // operator's own extras (finalizer, status, Events, the input watch) are what the ratio measures.
  controlPlaneStages: (ns) => [
    [
      staged(KeystoneAPIKind, ns, 'keystone', { spec: { secret: 'osp-secret' } }),
      job(ns, 'keystone-db-create'),
    ],
    [
      plainSecret(ns, 'keystone-scripts'),
      plainSecret(ns, 'keystone-config-data'),
      plainSecret(ns, 'keystone'),
      serviceAccount(ns, 'keystone-keystone'),
      role(ns, 'keystone-keystone-role'),
      roleBinding(ns, 'keystone-keystone-rolebinding', 'keystone-keystone-role', 'keystone-keystone'),
      job(ns, 'keystone-db-sync'),
    ],
    [service(ns, 'keystone-public'), service(ns, 'keystone-internal'), job(ns, 'keystone-bootstrap')],
    [
      deployment(ns, 'keystone'),
      cronJob(ns, 'keystone-cron'),
      configMap(ns, 'openstack-config'),
      plainSecret(ns, 'openstack-config-secret'),
    ],
  ],
  applyMaxima: async (client, ns) => {
    await client.create(KeystoneAPIKind, {
      apiVersion: 'keystone.openstack.org/v1beta1',
      kind: 'KeystoneAPI',
      metadata: { name: 'keystone', namespace: ns },
      spec: {
        secret: 'osp-secret',
        replicas: 3,
        fernetMaxActiveKeys: 100,
        customServiceConfig: configText(256 * 1024),
        // 16 files (the maximum) of 32 KiB: with the 256 KiB above the config Secret stays under
        // the API server's 1 MiB per Secret (16 × 64 KiB would be refused there, not by the CRD).
        defaultConfigOverwrite: Object.fromEntries(
          Array.from({ length: 16 }, (_, i) => [`policy-${i}.yaml`, configText(32 * 1024)]),
        ),
      },
    } as KubeObject);
  },
  primaryResource: 'keystoneapis',
  controlPlaneKinds: [Kinds.Job, Kinds.Deployment],
  subject: (entry) => ourOperator('keystone', entry),
};

/** `bytes` of ini-like text (comment lines), as a large customServiceConfig would be. */
const configText = (bytes: number) => {
  const line = `# ${'x'.repeat(77)}\n`;
  return `[DEFAULT]\n${line.repeat(Math.floor((bytes - 10) / line.length))}`.slice(0, bytes);
};

const benchLabels = (name: string) => ({ 'app.kubernetes.io/name': name, 'stackops-bench': 'baseline' });
const podTemplate = (name: string, restartPolicy: string) => ({
  metadata: { labels: benchLabels(name) },
  spec: { restartPolicy, containers: [{ name, image: 'keystone:bench', command: ['/bin/true'] }] },
});
/** One object of a baseline stage: `kind`'s apiVersion and kind, `name` in `ns`, then `body`. */
export const staged = (kind: KindRef, ns: string, name: string, body: Record<string, unknown> = {}) => ({
  kind,
  object: {
    apiVersion: kind.group ? `${kind.group}/${kind.version}` : kind.version,
    kind: kind.kind,
    metadata: { name, namespace: ns },
    ...body,
  } as KubeObject,
});
const job = (ns: string, name: string) =>
  staged(Kinds.Job, ns, name, { spec: { backoffLimit: 0, template: podTemplate(name, 'Never') } });
const service = (ns: string, name: string) =>
  staged(Kinds.Service, ns, name, {
    spec: { selector: benchLabels('keystone'), ports: [{ name: 'api', port: 5000 }] },
  });
const plainSecret = (ns: string, name: string) =>
  staged(Kinds.Secret, ns, name, { stringData: { [name]: configText(2048) } });
const configMap = (ns: string, name: string) =>
  staged(Kinds.ConfigMap, ns, name, { data: { [name]: configText(512) } });
const serviceAccount = (ns: string, name: string) => staged(Kinds.ServiceAccount, ns, name);
const role = (ns: string, name: string) =>
  staged(Kinds.Role, ns, name, { rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] });
const roleBinding = (ns: string, name: string, roleName: string, account: string) =>
  staged(Kinds.RoleBinding, ns, name, {
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: roleName },
    subjects: [{ kind: 'ServiceAccount', name: account, namespace: ns }],
  });
const cronJob = (ns: string, name: string) =>
  staged(Kinds.CronJob, ns, name, {
    spec: { schedule: '1 0 1 1 *', jobTemplate: { spec: { template: podTemplate(name, 'Never') } } },
  });
const deployment = (ns: string, name: string) =>
  staged(Kinds.Deployment, ns, name, {
    spec: {
      replicas: 1,
      selector: { matchLabels: benchLabels(name) },
      template: podTemplate(name, 'Always'),
    },
  });

/**
 * PlacementAPI with a KeystoneAPI that says it is Ready and the keystone registration played here.
 * `besideKeystone`: the real keystone-operator runs in the same process (combined), and would
 * reconcile the played KeystoneAPI, KeystoneService and KeystoneEndpoint against a Keystone that
 * does not exist, the bench and it overwriting each other's status (348 apply requests instead of
 * the four operators' own ~100): so they are paused (`openstack.org/paused`, created so for the
 * KeystoneAPI, as soon as placement-operator has made them for the other two) with the Paused
 * condition keystone-operator would add already there. keystone-operator's part in the figures is
 * then its own KeystoneAPI's and at most a first pass over each registration before the pause.
 */
const placementDone = doneWhen(PlacementAPIKind, 'placement', 'Ready');
const placementWorkload = (besideKeystone: boolean): Workload => ({
  dir: 'placement',
  namespaced: true,
  crds: () => [...chartCrds('placement'), ...chartCrds('keystone'), ...nadCrd()],
  prepare: async (client, ns) => {
    await secret(client, ns, 'osp-secret', {
      PlacementPassword: 'placement-pw',
      PlacementDatabasePassword: 'placement-db-pw',
      DbRootPassword: 'root-pw',
    });
    await databaseService(client, ns);
    const api = await client.create<KubeObject>(KeystoneAPIKind, {
      apiVersion: 'keystone.openstack.org/v1beta1',
      kind: 'KeystoneAPI',
      metadata: {
        name: 'keystone',
        namespace: ns,
        ...(besideKeystone ? { annotations: { [PAUSED_ANNOTATION]: '' } } : {}),
      },
      spec: { databaseInstance: 'openstack', secret: 'osp-secret', containerImage: 'keystone:test' },
    });
    await markReady(
      client,
      KeystoneAPIKind,
      ns,
      'keystone',
      api.metadata.generation ?? 1,
      {
        apiEndpoints: {
          public: `http://keystone-public.${ns}.svc:5000`,
          internal: `http://keystone-internal.${ns}.svc:5000`,
        },
        region: 'regionOne',
      },
      besideKeystone,
    );
  },
  apply: async (client, ns) => {
    await client.create(PlacementAPIKind, {
      apiVersion: 'placement.openstack.org/v1beta1',
      kind: 'PlacementAPI',
      metadata: { name: 'placement', namespace: ns },
      spec: { databaseInstance: 'openstack', secret: 'osp-secret' },
    } as KubeObject);
  },
  done: async (client, ns) => {
    // keystone-operator's part: the KeystoneService and KeystoneEndpoint it would register turn Ready.
    for (const k of [KeystoneServiceKind, KeystoneEndpointKind]) {
      const child = await client.get<WithStatus>(k, { name: 'placement', namespace: ns });
      if (!child || conditionTrue(child, 'Ready')) continue;
      if (besideKeystone && child.metadata.annotations?.[PAUSED_ANNOTATION] === undefined)
        await pause(client, k, ns, 'placement');
      await markReady(client, k, ns, 'placement', child.metadata.generation ?? 1, {}, besideKeystone);
    }
    return placementDone.done(client, ns);
  },
  watchDone: placementDone.watchDone,
  change: async (client, ns) => {
    await client.patch(
      PlacementAPIKind,
      { name: 'placement', namespace: ns },
      { spec: { replicas: 2 } },
      'merge',
    );
  },
  applyMaxima: async (client, ns) => {
    await client.create(PlacementAPIKind, {
      apiVersion: 'placement.openstack.org/v1beta1',
      kind: 'PlacementAPI',
      metadata: { name: 'placement', namespace: ns },
      spec: {
        databaseInstance: 'openstack',
        secret: 'osp-secret',
        replicas: 3,
        customServiceConfig: configText(256 * 1024),
        // policy.yaml is the one file the CRD allows; both at the CRD's 256 KiB.
        defaultConfigOverwrite: { 'policy.yaml': configText(256 * 1024) },
      },
    } as KubeObject);
  },
  controlPlaneKinds: [Kinds.Job, Kinds.Deployment],
  subject: (entry) => ourOperator('placement', entry),
});
const placement = placementWorkload(false);

const NAO_NAMESPACE = 'stackops-bench-nao';
const networkAddons: Workload = {
  dir: 'network-addons',
  namespaced: false,
  crds: () => chartCrds('network-addons'),
  setup: async (client) => {
    if (!(await client.get(Kinds.Namespace, { name: NAO_NAMESPACE })))
      await client.create(Kinds.Namespace, {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: NAO_NAMESPACE },
      } as KubeObject);
  },
  prepare: async () => {},
  apply: async (client) => {
    await client.create(NetworkAddonsConfigKind, {
      apiVersion: 'networkaddonsoperator.network.kubevirt.io/v1',
      kind: 'NetworkAddonsConfig',
      metadata: { name: 'cluster' },
      spec: { multus: {}, linuxBridge: {} },
    } as KubeObject);
  },
  ...doneWhen(NetworkAddonsConfigKind, 'cluster', 'Available'),
  change: async (client) => {
    await client.patch(NetworkAddonsConfigKind, { name: 'cluster' }, { spec: { kubeMacPool: {} } }, 'merge');
  },
  controlPlaneKinds: [Kinds.Deployment, Kinds.DaemonSet],
  subject: (entry) => ourOperator('network-addons', entry, { OPERATOR_NAMESPACE: NAO_NAMESPACE }),
};

const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
const sip: Workload = {
  dir: 'sip',
  namespaced: true,
  crds: () => [...chartCrds('sip'), ...templateCrds('sip')],
  // One control-plane host with its networkData and BMC Secrets, as the operator's own tests make.
  prepare: async (client, ns) => {
    await client.create(Kinds.Secret, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'cp-a-networkdata', namespace: ns },
      data: {
        networkData: b64(
          JSON.stringify({
            links: [{ id: 'eth0', type: 'phy' }],
            networks: [
              {
                id: 'oam-ipv4',
                type: 'ipv4',
                link: 'eth0',
                ip_address: '10.0.0.10',
                netmask: '255.255.255.0',
              },
            ],
          }),
        ),
      },
    } as KubeObject);
    await client.create(Kinds.Secret, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'cp-a-bmc', namespace: ns },
      data: { username: b64('admin'), password: b64('pw') },
    } as KubeObject);
    await client.create(BareMetalHostKind, {
      apiVersion: 'metal3.io/v1alpha1',
      kind: 'BareMetalHost',
      metadata: {
        name: 'cp-a',
        namespace: ns,
        labels: { 'example.org/bmh-label': 'control-plane', 'example.org/rack': 'r1' },
      },
      spec: {
        online: true,
        bmc: { address: 'redfish+https://10.9.9.9/redfish/v1/Systems/cp-a', credentialsName: 'cp-a-bmc' },
        networkData: { name: 'cp-a-networkdata', namespace: ns },
      },
    } as KubeObject);
  },
  apply: async (client, ns) => {
    await client.create(SIPClusterKind, {
      apiVersion: 'airship.airshipit.org/v1',
      kind: 'SIPCluster',
      metadata: { name: 'tenant', namespace: ns },
      spec: sipSpec(),
    } as KubeObject);
  },
  ...doneWhen(SIPClusterKind, 'tenant', 'Ready'),
  controlPlaneKinds: [Kinds.Deployment],
  subject: (entry) => ourOperator('sip', entry),
};

/** One control-plane host behind one load balancer (the NodePort is free on a fresh cluster). */
const sipSpec = () => ({
  nodes: {
    ControlPlane: {
      labelSelector: { matchLabels: { 'example.org/bmh-label': 'control-plane' } },
      topologyKey: 'example.org/rack',
      count: { active: 1, standby: 0 },
    },
  },
  services: {
    loadBalancerControlPlane: [{ image: 'haproxy:2.3.2', nodePort: 31900, nodeInterfaceId: 'oam-ipv4' }],
  },
});

const unique = <T>(items: T[], key: (t: T) => string) => [...new Map(items.map((i) => [key(i), i])).values()];

/**
 * The four operators in one process (operators/combined): every operator's instance at once, each
 * in a namespace of its own (their prerequisites share names, e.g. `osp-secret`) and done by its
 * own rule; the one change is keystone's.
 */
const allInOne = (parts: readonly Workload[]): Workload => {
  const nsOf = (w: Workload, ns: string) => `${ns}-${w.dir}`;
  return {
    dir: 'combined',
    crds: () =>
      unique(
        parts.flatMap((w) => w.crds()),
        (c) => c.metadata.name ?? '',
      ),
    setup: async (client) => {
      for (const w of parts) await w.setup?.(client);
    },
    // Its instances live in several namespaces: the control plane's work is watched in all.
    namespaced: false,
    prepare: async (client, ns) => {
      for (const w of parts) {
        await client.create(Kinds.Namespace, {
          apiVersion: 'v1',
          kind: 'Namespace',
          metadata: { name: nsOf(w, ns) },
        } as KubeObject);
        await w.prepare(client, nsOf(w, ns));
      }
    },
    apply: async (client, ns) => {
      await Promise.all(parts.map((w) => w.apply(client, nsOf(w, ns))));
    },
    done: async (client, ns) =>
      (await Promise.all(parts.map((w) => w.done(client, nsOf(w, ns))))).every(Boolean),
    // One instance of each kind in the cluster: each kind's watch sees only its part's.
    doneWatches: parts.flatMap((w) => (w.watchDone ? [w.watchDone] : [])),
    change: (client, ns) => keystone.change?.(client, nsOf(keystone, ns)) ?? Promise.resolve(),
    controlPlaneKinds: unique(
      parts.flatMap((w) => w.controlPlaneKinds),
      (k) => `${k.group}/${k.plural}`,
    ),
    subject: (entry) => ({
      ...ourOperator('combined', entry, { OPERATOR_NAMESPACE: NAO_NAMESPACE }),
      name: 'stackops-operators',
    }),
  };
};

export const workloads: Record<OperatorDir, Workload> = {
  keystone,
  placement,
  'network-addons': networkAddons,
  sip,
  combined: allInOne([keystone, placementWorkload(true), networkAddons, sip]),
};
