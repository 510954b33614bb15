import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDocument } from 'yaml';

/** A chart whose version follows an npm package: operators/<x> → charts/<x>-operator. */
export interface ChartLink {
  chartDir: string;
  packageName: string;
  packageVersion: string;
}

export interface Drift {
  chart: string;
  field: string;
  expected: string;
  actual: string | undefined;
}

const readJson = (file: string): { name: string; version: string } => JSON.parse(readFileSync(file, 'utf8'));

/** Every operator package that has a chart, plus the umbrella chart (its own private package). */
export function findChartLinks(root: string): ChartLink[] {
  const links: ChartLink[] = [];
  const opsDir = join(root, 'operators');
  for (const dir of existsSync(opsDir) ? readdirSync(opsDir).sort() : []) {
    const chartDir = join(root, 'charts', `${dir}-operator`);
    const pkgFile = join(opsDir, dir, 'package.json');
    if (!existsSync(join(chartDir, 'Chart.yaml')) || !existsSync(pkgFile)) continue;
    const pkg = readJson(pkgFile);
    links.push({ chartDir, packageName: pkg.name, packageVersion: pkg.version });
  }
  const umbrella = join(root, 'charts', 'stackops');
  if (existsSync(join(umbrella, 'package.json')) && existsSync(join(umbrella, 'Chart.yaml'))) {
    const pkg = readJson(join(umbrella, 'package.json'));
    links.push({ chartDir: umbrella, packageName: pkg.name, packageVersion: pkg.version });
  }
  return links;
}

/**
 * Compares (and with `write`, fixes) Chart.yaml `version`/`appVersion`, and the umbrella's
 * dependency versions, against the packages. Edits keep the file's comments and layout.
 */
export function syncChartVersions(root: string, write: boolean): Drift[] {
  const links = findChartLinks(root);
  const chartVersions = new Map<string, string>();
  for (const l of links) chartVersions.set(readChartName(l.chartDir), l.packageVersion);
  const drifts: Drift[] = [];
  for (const link of links) {
    const file = join(link.chartDir, 'Chart.yaml');
    const doc = parseDocument(readFileSync(file, 'utf8'));
    const chart = String(doc.get('name'));
    for (const field of ['version', 'appVersion']) {
      const actual = doc.get(field) as string | undefined;
      if (String(actual) !== link.packageVersion) {
        drifts.push({
          chart,
          field,
          expected: link.packageVersion,
          actual: actual === undefined ? undefined : String(actual),
        });
        doc.set(field, link.packageVersion);
      }
    }
    const deps = doc.get('dependencies') as { items?: unknown[] } | undefined;
    for (const [i] of (deps?.items ?? []).entries()) {
      const name = String(doc.getIn(['dependencies', i, 'name']));
      const expected = chartVersions.get(name);
      const actual = doc.getIn(['dependencies', i, 'version']) as string | undefined;
      if (expected && String(actual) !== expected) {
        drifts.push({ chart, field: `dependencies.${name}.version`, expected, actual });
        doc.setIn(['dependencies', i, 'version'], expected);
      }
    }
    if (write && drifts.some((d) => d.chart === chart)) writeFileSync(file, doc.toString());
  }
  return drifts;
}

function readChartName(chartDir: string): string {
  return String(parseDocument(readFileSync(join(chartDir, 'Chart.yaml'), 'utf8')).get('name'));
}
