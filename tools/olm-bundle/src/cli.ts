#!/usr/bin/env node
import { join, resolve } from 'node:path';
import { ensureBinary } from '@stackops/kube-env';
import { makeBundle, OPERATOR_CHARTS, readExamples, writeBundle } from './bundle.js';

// `olm-bundle [--out DIR] [--set key=value]... [chart...]`: writes build/olm/<chart>/ per operator chart.
const args = process.argv.slice(2);
const set: string[] = [];
const charts: string[] = [];
const root = resolve(import.meta.dirname, '../../..');
let out = join(root, 'build', 'olm');
for (let i = 0; i < args.length; i++) {
  const a = args[i] as string;
  const value = () => {
    const v = args[++i];
    if (v === undefined) throw new Error(`${a} needs a value`);
    return v;
  };
  if (a === '--out') out = resolve(value());
  else if (a === '--set') set.push(value());
  else if (a.startsWith('--')) throw new Error(`unknown option ${a} (known: --out DIR, --set key=value)`);
  else charts.push(a);
}
const helm = await ensureBinary('helm');
// The demo's upstream README examples: the CSV's alm-examples.
const examples = readExamples(join(root, 'tools', 'demo', 'examples'));
for (const chart of charts.length ? charts : OPERATOR_CHARTS) {
  const bundle = await makeBundle({ chartDir: join(root, 'charts', chart), helm, set, examples });
  const dir = join(out, chart);
  writeBundle(bundle, dir);
  console.log(
    `${dir}: ${bundle.manifests.size} manifests, CSV ${(bundle.csv.metadata as { name: string }).name}`,
  );
}
