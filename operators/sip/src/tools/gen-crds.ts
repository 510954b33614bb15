import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { writeCrdFiles } from '@stackops/lib-common/schema/files';
import { crdDefinitions } from '../api/crds.js';
import { chartDir, crdFileOptions, renderOptionalCrdTemplates } from './crd-files.js';

// Writes the chart's generated files (under the folder given as the first argument, if any).
const outDir = process.argv[2] ? resolve(process.argv[2]) : chartDir;
for (const path of await writeCrdFiles(crdDefinitions, join(outDir, 'crds'), crdFileOptions)) {
  console.log(`wrote ${path}`);
}
for (const file of renderOptionalCrdTemplates()) {
  const target = join(outDir, file.path);
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, file.content);
  console.log(`wrote ${target}`);
}
