import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { cacheLayout } from '@stackops/kube-env';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { run } from '../src/exec.js';

/** The umbrella chart rendered offline: conditions, shared `global` values, and its values schema. */
const chart = resolve(import.meta.dirname, '../../../charts/stackops');
const helm = join(cacheLayout().bin, 'helm');

interface Rendered {
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  spec?: {
    template?: { spec?: { containers?: { image: string; imagePullPolicy?: string; args?: string[] }[] } };
  };
}

/** Renders the chart; one Deployment per operator chart (operators.mode separate) unless `sets` choose the mode. */
async function render(...sets: string[]): Promise<Rendered[]> {
  const mode = sets.some((s) => s.startsWith('global.operators.mode='))
    ? []
    : ['global.operators.mode=separate'];
  const out = await run(helm, [
    'template',
    'stackops',
    chart,
    '-n',
    'stackops-system',
    ...[...mode, ...sets].flatMap((s) => ['--set', s]),
  ]);
  return parseAllDocuments(out)
    .map((d) => d.toJS() as Rendered | null)
    .filter((d): d is Rendered => d !== null);
}

/** Each operator's umbrella alias and its folder under operators/ (also its image and chart name). */
const OPERATOR_DIRS = {
  keystone: 'keystone',
  placement: 'placement',
  networkaddons: 'network-addons',
  sip: 'sip',
} as const;

const packageVersion = (dir: string): string =>
  (
    JSON.parse(
      readFileSync(resolve(import.meta.dirname, `../../../operators/${dir}/package.json`), 'utf8'),
    ) as {
      version: string;
    }
  ).version;

const operatorContainers = (docs: Rendered[]) =>
  docs
    .filter((d) => d.kind === 'Deployment')
    .map((d) => ({
      name: d.metadata.labels?.['app.kubernetes.io/name'],
      container: d.spec?.template?.spec?.containers?.[0],
    }));

beforeAll(async () => {
  await run(helm, ['dependency', 'build', chart, '--skip-refresh']);
});

describe('charts/stackops', () => {
  it('passes helm lint --strict', async () => {
    expect(await run(helm, ['lint', '--strict', chart])).toContain('0 chart(s) failed');
  });

  it('installs all four operators, a Deployment each with operators.mode separate, each behind <alias>.enabled', async () => {
    expect(
      operatorContainers(await render())
        .map((c) => c.name)
        .sort(),
    ).toEqual(['keystone', 'networkaddons', 'placement', 'sip']);
    const ofTheTwo = (docs: Rendered[]) =>
      docs
        .filter((d) => d.metadata.name.includes('networkaddons') || d.metadata.name.includes('-sip'))
        .map((d) => `${d.kind}/${d.metadata.name}`);
    // The filter finds their objects when they are on, so an empty result below means they are gone.
    expect(ofTheTwo(await render())).toEqual(
      expect.arrayContaining(['Deployment/stackops-networkaddons', 'Deployment/stackops-sip']),
    );
    const withoutTwo = await render('networkaddons.enabled=false', 'sip.enabled=false');
    expect(
      operatorContainers(withoutTwo)
        .map((c) => c.name)
        .sort(),
    ).toEqual(['keystone', 'placement']);
    expect(ofTheTwo(withoutTwo)).toEqual([]);
  });

  it("runs the enabled operators in one pod by default (operators.mode combined), its one ServiceAccount bound to every chart's RBAC", async () => {
    const defaults = parse(readFileSync(join(chart, 'values.yaml'), 'utf8')) as {
      global: { operators: { mode: string } };
    };
    expect(defaults.global.operators.mode).toBe('combined');
    const docs = await render('global.operators.mode=combined', 'sip.enabled=false');
    const containers = operatorContainers(docs);
    expect(containers.map((c) => c.name)).toEqual(['stackops-operators']);
    expect(containers[0]?.container?.args).toContain('--operators=keystone,network-addons,placement');
    expect(containers[0]?.container?.image).toBe(
      `ghcr.io/stackops/stackops-operators:${packageVersion('combined')}`,
    );
    expect(docs.filter((d) => d.kind === 'ServiceAccount').map((d) => d.metadata.name)).toEqual([
      'stackops-operators',
    ]);
    const subjects = docs
      .filter((d) => d.kind.endsWith('Binding'))
      .flatMap((d) => (d as unknown as { subjects: { name: string }[] }).subjects.map((x) => x.name));
    expect(new Set(subjects)).toEqual(new Set(['stackops-operators']));
    // What one process cannot honour per operator is refused, not ignored.
    await expect(render('global.operators.mode=combined', 'keystone.watchNamespaces={a}')).rejects.toThrow(
      /keystone\.watchNamespaces: not available with global\.operators\.mode combined/,
    );
    await expect(render('global.operators.mode=combined', 'placement.webhook.enabled=true')).rejects.toThrow(
      /webhook\.enabled: not available with global\.operators\.mode combined/,
    );
  });

  it('passes the shared global values down to every operator', async () => {
    const docs = await render(
      'global.image.registry=registry.example.org',
      'global.image.tag=9.9.9',
      'global.image.pullPolicy=Always',
      'global.logLevel=debug',
      'global.leaderElection.enabled=true',
      'global.watchNamespaces={openstack,sip-demo}',
    );
    const containers = operatorContainers(docs);
    expect(containers).toHaveLength(4);
    for (const { name, container } of containers) {
      expect(container?.image, name).toMatch(/^registry\.example\.org\/stackops\/[a-z-]+-operator:9\.9\.9$/);
      expect(container?.imagePullPolicy, name).toBe('Always');
      expect(container?.args, name).toContain('--log-level=debug');
      expect(container?.args, name).toContain('--leader-elect');
    }
    // network-addons is cluster-wide by nature; the others watch exactly the given namespaces with Roles.
    for (const { name, container } of containers.filter((c) => c.name !== 'networkaddons')) {
      expect(container?.args, name).toContain('--watch-namespace=openstack,sip-demo');
    }
    // One Role per watched namespace for each of them (network-addons keeps its own events Role).
    const watchRoles = docs
      .filter((d) => d.kind === 'Role' && !d.metadata.name.endsWith('leader-election'))
      .filter((d) => !d.metadata.name.startsWith('stackops-networkaddons'))
      .map((d) => `${d.metadata.namespace}/${d.metadata.name}`)
      .sort();
    expect(watchRoles).toEqual(
      ['keystone', 'placement', 'sip-manager']
        .flatMap((n) => ['openstack', 'sip-demo'].map((ns) => `${ns}/stackops-${n}`))
        .sort(),
    );
  });

  it("keeps each chart's own defaults when the globals are left empty", async () => {
    const containers = operatorContainers(await render());
    expect(containers.map((c) => c.name).sort()).toEqual(Object.keys(OPERATOR_DIRS).sort());
    for (const { name, container } of containers) {
      // Each chart's default tag is its appVersion, which follows its operator package's version.
      const dir = OPERATOR_DIRS[name as keyof typeof OPERATOR_DIRS];
      expect(container?.image, name).toBe(`ghcr.io/stackops/${dir}-operator:${packageVersion(dir)}`);
      expect(container?.args, name).toContain('--log-level=info');
    }
  });

  it('refuses values its schema does not allow, naming them', async () => {
    // The error repeats the command line, so match helm's schema message, not just the value's name.
    await expect(render('global.logLevel=loud')).rejects.toThrow(
      /at '\/global\/logLevel': value must be one of/,
    );
    await expect(render('keystone.enabled=maybe')).rejects.toThrow(
      /at '\/keystone\/enabled': got string, want boolean/,
    );
    await expect(render('nosuchoperator.enabled=true')).rejects.toThrow(
      /additional properties 'nosuchoperator' not allowed/,
    );
  });
});
