import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderChartFiles } from './crd-files.js';

/** charts/sip-operator, found from this file's place in the repository (dist/tools/). */
export const chartDir = resolve(dirname(fileURLToPath(import.meta.url)), '../../../../charts/sip-operator');

const outDir = process.argv[2] ? resolve(process.argv[2]) : chartDir;
for (const file of renderChartFiles()) {
  const target = join(outDir, file.path);
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, file.content);
  console.log(`wrote ${target}`);
}
