import { resolve } from 'node:path';
import { writeCrdFiles } from '@stackops/lib-common/schema/files';
import { keystoneCrds } from '../api/crds.js';
import { chartCrdDir, crdFileOptions } from './crd-files.js';

// Writes the chart's crds/ (or the folder given as the first argument) from the TypeBox schemas.
const outDir = process.argv[2] ? resolve(process.argv[2]) : chartCrdDir;
for (const path of await writeCrdFiles(keystoneCrds, outDir, crdFileOptions)) console.log(`wrote ${path}`);
