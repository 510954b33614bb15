import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderCrdFiles } from './crd-files.js';

/** charts/network-addons-operator/crds, found from this file's place in the repository (dist/tools/). */
export const chartCrdDir = resolve(
  dirname(fileURLToPath(import.meta.url)),
  '../../../../charts/network-addons-operator/crds',
);

const outDir = process.argv[2] ? resolve(process.argv[2]) : chartCrdDir;
mkdirSync(outDir, { recursive: true });
for (const file of renderCrdFiles()) {
  const path = join(outDir, file.fileName);
  writeFileSync(path, file.content);
  console.log(`wrote ${path}`);
}
