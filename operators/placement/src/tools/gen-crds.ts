import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderCrdFiles } from './crd-files.js';

/** charts/placement-operator/crds, found from this file's place in the repository (dist/tools/). */
export const chartCrdDir = resolve(
  dirname(fileURLToPath(import.meta.url)),
  '../../../../charts/placement-operator/crds',
);

const outDir = process.argv[2] ? resolve(process.argv[2]) : chartCrdDir;
mkdirSync(outDir, { recursive: true });
for (const file of renderCrdFiles()) {
  writeFileSync(join(outDir, file.fileName), file.content);
  console.log(`wrote ${join(outDir, file.fileName)}`);
}
