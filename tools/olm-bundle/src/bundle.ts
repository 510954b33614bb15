import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseRendered, type RenderedObject, runCommand, setFlags } from '@stackops/lib-common/testing';
import { parse, stringify } from 'yaml';

/**
 * An OLM bundle (registry+v1) made from an operator's Helm chart: `helm template` renders the chart,
 * and the rendered objects become the ClusterServiceVersion (Deployment, RBAC, owned CRDs, related
 * images, install modes) and the bundle's other manifests. Nothing here restates what the chart
 * says; the chart stays the one source of truth (ADR 0043).
 */

/** The namespace charts are rendered in; OLM picks the real one at install, so it must not survive. */
export const RENDER_NAMESPACE = 'olm-bundle-render-namespace';

/** Kinds OLM installs from a bundle's manifests/ besides the CSV and CRDs. */
const MANIFEST_KINDS = new Set([
  'ClusterRole',
  'ClusterRoleBinding',
  'ConfigMap',
  'PodDisruptionBudget',
  'PriorityClass',
  'PrometheusRule',
  'Role',
  'RoleBinding',
  'Secret',
  'Service',
  'ServiceAccount',
  'ServiceMonitor',
  'VerticalPodAutoscaler',
]);

/** Labels that say Helm manages an object: untrue once OLM installs it. */
const HELM_LABELS = ['helm.sh/chart', 'app.kubernetes.io/managed-by'];

export interface BundleOptions {
  chartDir: string;
  /** The helm binary (kube-env's). */
  helm: string;
  /** `--set` values, as for `helm template`. */
  set?: readonly string[];
  /** The OLM channel (default `alpha`). */
  channel?: string;
  /** Example objects; those of the bundle's owned kinds become the CSV's `alm-examples`. */
  examples?: readonly RenderedObject[];
}

interface ChartMeta {
  name: string;
  version: string;
  description: string;
  kubeVersion?: string;
  keywords?: string[];
  home?: string;
  sources?: string[];
}

export interface Bundle {
  packageName: string;
  /** The ClusterServiceVersion. */
  csv: Record<string, unknown>;
  /** manifests/<file> → object, the CSV included. */
  manifests: Map<string, unknown>;
  /** metadata/annotations.yaml's content. */
  annotations: Record<string, string>;
}

interface PolicyRule {
  apiGroups?: string[];
  resources?: string[];
  verbs: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

interface Subject {
  kind: string;
  name: string;
  namespace?: string;
}

type Rbac = RenderedObject & {
  rules?: PolicyRule[];
  roleRef?: { kind: string; name: string };
  subjects?: Subject[];
};

interface Container {
  name: string;
  image: string;
  env?: { name: string; value?: string; valueFrom?: unknown }[];
}

interface DeploymentSpec {
  template: { spec: { serviceAccountName?: string; containers: Container[] } };
}

const render = async (opts: BundleOptions, chart: ChartMeta, extra: readonly string[]) =>
  parseRendered(
    await runCommand(opts.helm, [
      'template',
      chart.name,
      opts.chartDir,
      '--namespace',
      RENDER_NAMESPACE,
      '--include-crds',
      ...setFlags([...(opts.set ?? []), ...extra]),
    ]),
  );

/** "keystone-operator" → "Keystone Operator". */
const title = (name: string) =>
  name
    .split('-')
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join(' ');

/** `RELATED_IMAGE_KEYSTONE_API_IMAGE_URL_DEFAULT` → `keystone-api`, `MULTUS_IMAGE` → `multus`. */
const relatedImageName = (env: string) =>
  env
    .replace(/^RELATED_IMAGE_/, '')
    .replace(/(_IMAGE_URL_DEFAULT|_IMAGE)$/, '')
    .toLowerCase()
    .replaceAll('_', '-');

const isImageEnv = (name: string) => /^RELATED_IMAGE_|_IMAGE$/.test(name);

function withoutHelmLabels<T extends RenderedObject>(o: T): T {
  const labels = o.metadata?.labels;
  if (labels) for (const l of HELM_LABELS) delete labels[l];
  return o;
}

const boundTo = (b: Rbac, sa: string) =>
  (b.subjects ?? []).some((s) => s.kind === 'ServiceAccount' && s.name === sa);

/**
 * The rules granted to `sa` by the rendered bindings, and the RBAC objects they account for (which
 * the CSV replaces: OLM creates the ServiceAccount, its roles and bindings from the CSV).
 */
function grantedRules(docs: readonly RenderedObject[], sa: string, bindingKind: string) {
  const rules: PolicyRule[] = [];
  const used = new Set<RenderedObject>();
  for (const binding of docs as Rbac[]) {
    if (binding.kind !== bindingKind || !boundTo(binding, sa)) continue;
    const role = (docs as Rbac[]).find(
      (r) => r.kind === binding.roleRef?.kind && r.metadata?.name === binding.roleRef?.name,
    );
    if (!role)
      throw new Error(
        `${bindingKind} ${binding.metadata?.name}: its ${binding.roleRef?.kind} ${binding.roleRef?.name} is not in the chart`,
      );
    rules.push(...(role.rules ?? []));
    used.add(binding).add(role);
  }
  return { rules, used };
}

/** The manifests/ file name operator-sdk gives an object: `<name>_<group>_<version>_<kind>.yaml`. */
function manifestFile(o: RenderedObject): string {
  const apiVersion = o.apiVersion ?? '';
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
  return `${o.metadata?.name}_${group}_${version}_${(o.kind ?? '').toLowerCase()}.yaml`;
}

/** Renders the chart and turns what it renders into an OLM bundle. */
export async function makeBundle(opts: BundleOptions): Promise<Bundle> {
  const chart = parse(readFileSync(join(opts.chartDir, 'Chart.yaml'), 'utf8')) as ChartMeta;
  const values = parse(readFileSync(join(opts.chartDir, 'values.yaml'), 'utf8')) as Record<string, unknown>;
  // A chart with `watchNamespaces` can watch some namespaces (Roles there) or all (ClusterRoles);
  // under OLM the OperatorGroup chooses, so the bundle offers every install mode and is rendered
  // with one watched namespace to learn which rules are namespaced (OLM grants `permissions` in
  // each target namespace, cluster-wide when it targets all).
  const scoped = 'watchNamespaces' in values;
  if (opts.set?.some((s) => s.startsWith('watchNamespaces')))
    throw new Error(
      'watchNamespaces: under OLM the OperatorGroup chooses the watched namespaces; do not set it',
    );
  const docs = await render(opts, chart, []);
  const rbacDocs = scoped ? await render(opts, chart, [`watchNamespaces={${RENDER_NAMESPACE}}`]) : docs;

  const deployments = docs.filter((o) => o.kind === 'Deployment');
  const deployment = deployments[0];
  if (deployments.length !== 1 || !deployment)
    throw new Error(
      `${chart.name}: the chart renders ${deployments.length} Deployments; a bundle needs exactly one`,
    );
  const spec = deployment.spec as unknown as DeploymentSpec;
  const sa = spec.template.spec.serviceAccountName;
  if (!sa) throw new Error(`${chart.name}: the Deployment names no serviceAccountName`);
  const container = spec.template.spec.containers[0];
  if (!container) throw new Error(`${chart.name}: the Deployment has no container`);
  if (scoped)
    container.env = [
      ...(container.env ?? []),
      {
        // The OperatorGroup's namespaces, comma-separated ("" for all): the chart's watchNamespaces.
        name: 'WATCH_NAMESPACE',
        valueFrom: { fieldRef: { fieldPath: "metadata.annotations['olm.targetNamespaces']" } },
      },
    ];
  for (const e of container.env ?? []) {
    // What the chart defaults to the release namespace is the pod's own namespace under OLM.
    if (e.value === RENDER_NAMESPACE) {
      delete e.value;
      e.valueFrom = { fieldRef: { fieldPath: 'metadata.namespace' } };
    }
  }

  const cluster = grantedRules(rbacDocs, sa, 'ClusterRoleBinding');
  const namespaced = grantedRules(rbacDocs, sa, 'RoleBinding');
  // The RBAC the CSV stands for, in both renders: OLM creates the ServiceAccount, its roles and bindings.
  const key = (o: RenderedObject) => `${o.kind}/${o.metadata?.name}`;
  const replaced = new Set(
    [rbacDocs, docs].flatMap((d) =>
      ['ClusterRoleBinding', 'RoleBinding'].flatMap((k) => [...grantedRules(d, sa, k).used].map(key)),
    ),
  );
  const accounted = (o: RenderedObject) =>
    replaced.has(key(o)) || (o.kind === 'ServiceAccount' && o.metadata?.name === sa);

  const crds = docs.filter((o) => o.kind === 'CustomResourceDefinition');
  const manifests = new Map<string, unknown>();
  for (const crd of crds) {
    const s = crd.spec as { group: string; names: { plural: string } };
    manifests.set(`${s.group}_${s.names.plural}.yaml`, withoutHelmLabels(crd));
  }
  for (const o of docs) {
    if (o.kind === 'CustomResourceDefinition' || o === deployment || accounted(o)) continue;
    if (!MANIFEST_KINDS.has(o.kind ?? ''))
      throw new Error(
        `${chart.name}: ${o.kind} ${o.metadata?.name} cannot go in an OLM bundle (OLM installs only ${[...MANIFEST_KINDS].join(', ')} beside the CSV and CRDs)`,
      );
    if (o.metadata) delete o.metadata.namespace;
    manifests.set(manifestFile(o), withoutHelmLabels(o));
  }

  const operatorImage = container.image;
  const relatedImages = [
    { name: 'operator', image: operatorImage },
    ...(container.env ?? [])
      .filter((e) => isImageEnv(e.name) && e.value)
      .map((e) => ({ name: relatedImageName(e.name), image: e.value as string })),
  ];
  const minKubeVersion = /(\d+\.\d+\.\d+)/.exec(chart.kubeVersion ?? '')?.[1];
  if (!minKubeVersion)
    throw new Error(`${chart.name}: Chart.yaml has no kubeVersion to take minKubeVersion from`);
  const owned = crds.flatMap((crd) => {
    const s = crd.spec as {
      names: { kind: string };
      versions: { name: string; served: boolean; schema?: { openAPIV3Schema?: { description?: string } } }[];
    };
    return s.versions
      .filter((v) => v.served)
      .map((v) => {
        const description = v.schema?.openAPIV3Schema?.description;
        if (!description) throw new Error(`${crd.metadata?.name} ${v.name}: its schema has no description`);
        return {
          name: crd.metadata?.name,
          version: v.name,
          kind: s.names.kind,
          displayName: s.names.kind,
          description,
        };
      });
  });
  const ownedKinds = new Set(
    owned.map((o) => `${o.name?.split('.').slice(1).join('.')}/${o.version}/${o.kind}`),
  );
  const almExamples = (opts.examples ?? [])
    .filter((e) => ownedKinds.has(`${e.apiVersion}/${e.kind}`))
    .map((e) => {
      const copy = structuredClone(e);
      // OLM's console creates the example in the namespace it is looking at.
      if (copy.metadata) delete copy.metadata.namespace;
      return copy;
    });
  const permission = (rules: PolicyRule[]) => (rules.length ? [{ serviceAccountName: sa, rules }] : []);
  const allModes = ['OwnNamespace', 'SingleNamespace', 'MultiNamespace'];
  const csvName = `${chart.name}.v${chart.version}`;
  const link = chart.sources?.[0] ?? chart.home;
  const csv = {
    apiVersion: 'operators.coreos.com/v1alpha1',
    kind: 'ClusterServiceVersion',
    metadata: {
      name: csvName,
      annotations: {
        ...(almExamples.length ? { 'alm-examples': JSON.stringify(almExamples) } : {}),
        capabilities: 'Basic Install',
        categories: 'Networking, OpenShift Optional',
        containerImage: operatorImage,
        description: chart.description,
        ...(chart.home ? { repository: chart.home } : {}),
      },
    },
    spec: {
      displayName: title(chart.name),
      description: chart.description,
      version: chart.version,
      minKubeVersion,
      maturity: opts.channel ?? 'alpha',
      provider: { name: 'stackops' },
      keywords: chart.keywords ?? [],
      links: link ? [{ name: 'Source', url: link }] : [],
      maintainers: [{ name: 'stackops', email: 'stackops@users.noreply.github.com' }],
      installModes: [
        { type: 'AllNamespaces', supported: true },
        ...allModes.map((type) => ({ type, supported: scoped })),
      ],
      install: {
        strategy: 'deployment',
        spec: {
          clusterPermissions: permission(cluster.rules),
          permissions: permission(namespaced.rules),
          deployments: [
            {
              name: deployment.metadata?.name,
              label: withoutHelmLabels(deployment).metadata?.labels,
              spec,
            },
          ],
        },
      },
      customresourcedefinitions: { owned },
      relatedImages,
    },
  };
  manifests.set(`${chart.name}.clusterserviceversion.yaml`, csv);
  const leftover = [...manifests].find(([, o]) => JSON.stringify(o).includes(RENDER_NAMESPACE));
  if (leftover)
    throw new Error(
      `${chart.name}: manifests/${leftover[0]} still names the render namespace; OLM chooses the namespace at install`,
    );
  const channel = opts.channel ?? 'alpha';
  return {
    packageName: chart.name,
    csv,
    manifests,
    annotations: {
      'operators.operatorframework.io.bundle.mediatype.v1': 'registry+v1',
      'operators.operatorframework.io.bundle.manifests.v1': 'manifests/',
      'operators.operatorframework.io.bundle.metadata.v1': 'metadata/',
      'operators.operatorframework.io.bundle.package.v1': chart.name,
      'operators.operatorframework.io.bundle.channels.v1': channel,
      'operators.operatorframework.io.bundle.channel.default.v1': channel,
    },
  };
}

/** Writes `bundle` to `dir` (emptied first): manifests/ and metadata/annotations.yaml. */
export function writeBundle(bundle: Bundle, dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, 'manifests'), { recursive: true });
  mkdirSync(join(dir, 'metadata'), { recursive: true });
  for (const [file, o] of bundle.manifests) writeFileSync(join(dir, 'manifests', file), stringify(o));
  writeFileSync(join(dir, 'metadata', 'annotations.yaml'), stringify({ annotations: bundle.annotations }));
}

/** The objects of every YAML file in `dir` (e.g. tools/demo/examples), in name order. */
export function readExamples(dir: string): RenderedObject[] {
  return readdirSync(dir)
    .filter((f) => /\.ya?ml$/.test(f))
    .sort()
    .flatMap((f) => parseRendered(readFileSync(join(dir, f), 'utf8')));
}

/** The charts under charts/ that get a bundle: one per operator. */
export const OPERATOR_CHARTS = [
  'keystone-operator',
  'placement-operator',
  'network-addons-operator',
  'sip-operator',
] as const;
