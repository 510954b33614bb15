import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { findChartLinks, syncChartVersions } from '../src/chart-versions.js';

const repoRoot = resolve(import.meta.dirname, '../../..');

const fixtures: string[] = [];
afterEach(() => {
  for (const root of fixtures.splice(0)) rmSync(root, { recursive: true, force: true });
});

function fixture(): string {
  const root = mkdtempSync(join(tmpdir(), 'chart-sync-'));
  fixtures.push(root);
  mkdirSync(join(root, 'operators/keystone'), { recursive: true });
  mkdirSync(join(root, 'charts/keystone-operator'), { recursive: true });
  mkdirSync(join(root, 'charts/stackops'), { recursive: true });
  writeFileSync(
    join(root, 'operators/keystone/package.json'),
    JSON.stringify({ name: '@stackops/keystone-operator', version: '1.2.3' }),
  );
  writeFileSync(
    join(root, 'charts/keystone-operator/Chart.yaml'),
    '# keep me\napiVersion: v2\nname: keystone-operator\nversion: 1.2.0\nappVersion: "1.2.0"\n',
  );
  writeFileSync(
    join(root, 'charts/stackops/package.json'),
    JSON.stringify({ name: '@stackops/stackops-chart', version: '0.4.0' }),
  );
  writeFileSync(
    join(root, 'charts/stackops/Chart.yaml'),
    'apiVersion: v2\nname: stackops\nversion: 0.4.0\nappVersion: 0.4.0\ndependencies:\n  - name: keystone-operator\n    version: 1.2.0\n    repository: file://../keystone-operator\n',
  );
  return root;
}

describe('syncChartVersions', () => {
  it('reports every drifted field, including the umbrella dependency, without writing in check mode', () => {
    const root = fixture();
    const drifts = syncChartVersions(root, false);
    expect(drifts).toEqual([
      { chart: 'keystone-operator', field: 'version', expected: '1.2.3', actual: '1.2.0' },
      { chart: 'keystone-operator', field: 'appVersion', expected: '1.2.3', actual: '1.2.0' },
      {
        chart: 'stackops',
        field: 'dependencies.keystone-operator.version',
        expected: '1.2.3',
        actual: '1.2.0',
      },
    ]);
    expect(readFileSync(join(root, 'charts/keystone-operator/Chart.yaml'), 'utf8')).toContain(
      'version: 1.2.0',
    );
  });

  it('writes the package version into Chart.yaml, keeping comments, and is then in step', () => {
    const root = fixture();
    syncChartVersions(root, true);
    const chart = readFileSync(join(root, 'charts/keystone-operator/Chart.yaml'), 'utf8');
    expect(chart).toContain('# keep me');
    expect(chart).toMatch(/^version: 1\.2\.3$/m);
    expect(chart).toMatch(/^appVersion: "?1\.2\.3"?$/m);
    expect(readFileSync(join(root, 'charts/stackops/Chart.yaml'), 'utf8')).toMatch(
      /version: 1\.2\.3\n\s+repository/,
    );
    expect(syncChartVersions(root, false)).toEqual([]);
  });
});

describe('this repository', () => {
  it('has every chart in step with its operator package (run `npm run version-packages` to fix)', () => {
    expect(findChartLinks(repoRoot).length).toBeGreaterThan(0);
    expect(syncChartVersions(repoRoot, false)).toEqual([]);
  });
});
