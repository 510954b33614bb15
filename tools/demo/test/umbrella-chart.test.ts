import { join, resolve } from 'node:path';
import { cacheLayout } from '@stackops/kube-env';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { run } from '../src/exec.js';

/** The umbrella chart rendered offline: conditions, shared `global` values, and its values schema. */
const chart = resolve(import.meta.dirname, '../../../charts/stackops');
const helm = join(cacheLayout().bin, 'helm');

interface Rendered {
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  spec?: {
    template?: { spec?: { containers?: { image: string; imagePullPolicy?: string; args?: string[] }[] } };
  };
}

async function render(...sets: string[]): Promise<Rendered[]> {
  const out = await run(helm, [
    'template',
    'stackops',
    chart,
    '-n',
    'stackops-system',
    ...sets.flatMap((s) => ['--set', s]),
  ]);
  return parseAllDocuments(out)
    .map((d) => d.toJS() as Rendered | null)
    .filter((d): d is Rendered => d !== null);
}

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

  it('installs all four operators by default, each behind <alias>.enabled', async () => {
    expect(
      operatorContainers(await render())
        .map((c) => c.name)
        .sort(),
    ).toEqual(['keystone', 'networkaddons', 'placement', 'sip']);
    const withoutTwo = await render('networkaddons.enabled=false', 'sip.enabled=false');
    expect(
      operatorContainers(withoutTwo)
        .map((c) => c.name)
        .sort(),
    ).toEqual(['keystone', 'placement']);
    expect(
      withoutTwo.filter((d) => d.metadata.name.includes('networkaddons') || d.metadata.name.includes('-sip')),
    ).toEqual([]);
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
    const roles = docs.filter((d) => d.kind === 'Role' && !d.metadata.name.endsWith('leader-election'));
    expect(roles.length).toBeGreaterThanOrEqual(6);
  });

  it("keeps each chart's own defaults when the globals are left empty", async () => {
    for (const { name, container } of operatorContainers(await render())) {
      expect(container?.image, name).toMatch(/^ghcr\.io\/stackops\/[a-z-]+-operator:0\.1\.0$/);
      expect(container?.args, name).toContain('--log-level=info');
    }
  });

  it('refuses values its schema does not allow, naming them', async () => {
    await expect(render('global.logLevel=loud')).rejects.toThrow(/logLevel/);
    await expect(render('keystone.enabled=maybe')).rejects.toThrow(/enabled/);
    await expect(render('nosuchoperator.enabled=true')).rejects.toThrow(/nosuchoperator/);
  });
});
