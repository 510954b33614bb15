import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ensureBinary, ensureOperatorSdk } from '@stackops/kube-env';
import {
  findRendered,
  parseRendered,
  type RenderedContainer,
  renderedContainer,
  runCommand,
} from '@stackops/lib-common/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { makeBundle, OPERATOR_CHARTS, RENDER_NAMESPACE, readExamples, writeBundle } from '../src/bundle.js';

const root = resolve(import.meta.dirname, '../../..');
const chartDir = (chart: string) => join(root, 'charts', chart);
let helm: string;
let operatorSdk: string;

interface Csv {
  metadata: { name: string; annotations: Record<string, string> };
  spec: {
    minKubeVersion: string;
    installModes: { type: string; supported: boolean }[];
    relatedImages: { name: string; image: string }[];
    customresourcedefinitions: {
      owned: { name: string; version: string; kind: string; description: string }[];
    };
    install: {
      spec: {
        deployments: {
          name: string;
          spec: { replicas: number; template: { spec: Record<string, unknown> } };
        }[];
        clusterPermissions: { serviceAccountName: string; rules: unknown[] }[];
        permissions: { serviceAccountName: string; rules: unknown[] }[];
      };
    };
  };
}

beforeAll(async () => {
  helm = await ensureBinary('helm');
  operatorSdk = await ensureOperatorSdk();
});

interface Validation {
  passed: boolean;
  outputs: { type: string; message: string }[] | null;
  exit: number | null;
}

/** `operator-sdk bundle validate` on `dir`, its JSON report (on stdout, whatever the verdict) and exit code. */
function validate(dir: string, extra: string[] = []): Validation {
  const r = spawnSync(operatorSdk, ['bundle', 'validate', dir, '-o', 'json-alpha1', ...extra], {
    encoding: 'utf8',
  });
  if (!r.stdout) throw new Error(`operator-sdk bundle validate ${dir}: no report: ${r.stderr || r.error}`);
  return { ...(JSON.parse(r.stdout) as Omit<Validation, 'exit'>), exit: r.status };
}

const errors = (v: Validation) => (v.outputs ?? []).filter((o) => o.type === 'error').map((o) => o.message);

describe('an OLM bundle per operator chart, validated by operator-sdk', () => {
  for (const chart of OPERATOR_CHARTS) {
    it(`${chart}: generated from the chart, operator-sdk bundle validate passes`, async () => {
      const examples = readExamples(join(root, 'tools', 'demo', 'examples'));
      const bundle = await makeBundle({ chartDir: chartDir(chart), helm, examples });
      const dir = join(root, 'build', 'olm', chart);
      writeBundle(bundle, dir);
      // operator-sdk's default validators, then its optional operatorframework suite (offline too).
      for (const extra of [[], ['--select-optional', 'suite=operatorframework']]) {
        const report = validate(dir, extra);
        expect(errors(report)).toEqual([]);
        expect(report).toMatchObject({ passed: true, exit: 0 });
      }

      const csv = parse(
        readFileSync(join(dir, 'manifests', `${chart}.clusterserviceversion.yaml`), 'utf8'),
      ) as Csv;
      const chartMeta = parse(readFileSync(join(chartDir(chart), 'Chart.yaml'), 'utf8')) as {
        version: string;
      };
      expect(csv.metadata.name).toBe(`${chart}.v${chartMeta.version}`);
      expect(csv.spec.minKubeVersion).toBe('1.29.0');
      // alm-examples: the demo's upstream example of the operator's main kind, without a namespace.
      const almExamples = JSON.parse(csv.metadata.annotations['alm-examples'] ?? '[]') as {
        kind: string;
        metadata: Record<string, unknown>;
      }[];
      expect(almExamples.map((e) => e.kind)).toEqual([csv.spec.customresourcedefinitions.owned[0]?.kind]);
      for (const e of almExamples) expect(e.metadata['namespace']).toBeUndefined();
      expect(parse(readFileSync(join(dir, 'metadata', 'annotations.yaml'), 'utf8'))).toMatchObject({
        annotations: {
          'operators.operatorframework.io.bundle.mediatype.v1': 'registry+v1',
          'operators.operatorframework.io.bundle.package.v1': chart,
        },
      });
      // Every CRD of the chart is in manifests/ and owned, with its description.
      const crdFiles = readdirSync(join(chartDir(chart), 'crds'));
      for (const f of crdFiles) expect(readdirSync(join(dir, 'manifests'))).toContain(f);
      expect(new Set(csv.spec.customresourcedefinitions.owned.map((o) => o.name)).size).toBe(crdFiles.length);
      for (const o of csv.spec.customresourcedefinitions.owned)
        expect(o.description.length).toBeGreaterThan(10);

      // The Deployment is the chart's: the same pod spec, plus WATCH_NAMESPACE from the OperatorGroup
      // where the chart can watch some namespaces (and then every install mode).
      const chartDocs = parseRendered(
        await runCommand(helm, ['template', chart, chartDir(chart), '-n', RENDER_NAMESPACE]),
      );
      const chartContainer = renderedContainer(chartDocs);
      const [deployment] = csv.spec.install.spec.deployments;
      // Outside the container, the Deployment spec is the chart's as it is.
      const withoutContainers = (spec: unknown) => {
        const copy = structuredClone(spec) as { template: { spec: { containers?: unknown } } };
        delete copy.template.spec.containers;
        return copy;
      };
      expect(withoutContainers(deployment?.spec)).toEqual(
        withoutContainers(findRendered(chartDocs, 'Deployment')[0]?.spec),
      );
      const scoped =
        'watchNamespaces' in (parse(readFileSync(join(chartDir(chart), 'values.yaml'), 'utf8')) as object);
      const podSpec = deployment?.spec.template.spec as { containers: RenderedContainer[] };
      const env = podSpec.containers[0]?.env ?? [];
      expect(env.some((e) => e.name === 'WATCH_NAMESPACE')).toBe(scoped);
      // Everything else of the container is the chart's, but env values naming the render namespace,
      // which become the pod's own namespace.
      const sameEnv = (e: RenderedContainer['env'][number]) =>
        e.value === RENDER_NAMESPACE
          ? { name: e.name, valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } }
          : e;
      expect({ ...podSpec.containers[0], env: env.filter((e) => e.name !== 'WATCH_NAMESPACE') }).toEqual({
        ...chartContainer,
        env: chartContainer.env.map(sameEnv),
      });
      expect(csv.spec.installModes.filter((m) => m.supported).map((m) => m.type)).toEqual(
        scoped ? ['AllNamespaces', 'OwnNamespace', 'SingleNamespace', 'MultiNamespace'] : ['AllNamespaces'],
      );
      // RBAC: the ServiceAccount's cluster and namespaced rules, none left as loose objects.
      expect(csv.spec.install.spec.clusterPermissions[0]?.rules.length).toBeGreaterThan(0);
      expect(csv.spec.install.spec.permissions[0]?.rules.length).toBeGreaterThan(0);
      expect(readdirSync(join(dir, 'manifests')).filter((f) => /binding/.test(f))).toEqual([]);
      // relatedImages: the operator's own and each default image the chart hands it.
      expect(csv.spec.relatedImages[0]).toEqual({ name: 'operator', image: chartContainer.image });
      expect(csv.spec.relatedImages.length).toBeGreaterThan(1);
    });
  }

  it('a change in the chart values shows in the CSV (replicas, operator image, a related image)', async () => {
    const bundle = await makeBundle({
      chartDir: chartDir('sip-operator'),
      helm,
      set: ['replicas=3', 'image.tag=9.9.9', 'relatedImages.haproxy=registry.example/haproxy:9.9'],
    });
    const csv = bundle.csv as unknown as Csv;
    expect(csv.spec.install.spec.deployments[0]?.spec.replicas).toBe(3);
    expect(csv.metadata.annotations['containerImage']).toBe('ghcr.io/stackops/sip-operator:9.9.9');
    expect(csv.spec.relatedImages).toContainEqual({ name: 'haproxy', image: 'registry.example/haproxy:9.9' });
    // replicas > 1: the chart's PodDisruptionBudget goes into the bundle too.
    expect([...bundle.manifests.keys()].some((f) => f.endsWith('_poddisruptionbudget.yaml'))).toBe(true);
  });

  it('operator-sdk fails a bundle whose CSV owns a CRD the bundle lacks (the validation can fail)', async () => {
    const bundle = await makeBundle({ chartDir: chartDir('sip-operator'), helm });
    const csv = bundle.csv as unknown as Csv;
    csv.spec.customresourcedefinitions.owned.push({
      name: 'widgets.example.com',
      version: 'v1',
      kind: 'Widget',
      description: 'Not in the bundle.',
    });
    const dir = join(tmpdir(), `olm-bundle-broken-${process.pid}`);
    writeBundle(bundle, dir);
    try {
      const report = validate(dir);
      expect(report).toMatchObject({ passed: false, exit: 1 });
      expect(errors(report).join('\n')).toMatch(/owned CRD .*Widget.* not found in bundle/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses what OLM cannot install or chooses itself', async () => {
    await expect(
      makeBundle({ chartDir: chartDir('keystone-operator'), helm, set: ['webhook.enabled=true'] }),
    ).rejects.toThrow(/MutatingWebhookConfiguration .* cannot go in an OLM bundle/);
    await expect(
      makeBundle({ chartDir: chartDir('placement-operator'), helm, set: ['watchNamespaces={a}'] }),
    ).rejects.toThrow(/watchNamespaces: under OLM the OperatorGroup chooses/);
  });
});
