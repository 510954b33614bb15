#!/usr/bin/env node
import { OUTPUT_DIR } from './generate.js';
import { syncGeneratedTypes } from './output.js';

/** `crd-types` writes the generated types; `crd-types --check` fails when they are out of date. */
const check = process.argv.includes('--check');
const differing = await syncGeneratedTypes(check ? 'check' : 'write');
if (check && differing.length > 0) {
  console.error(
    `out of date in ${OUTPUT_DIR}: ${differing.join(', ')} (run: npm run generate -w @stackops/crd-types)`,
  );
  process.exitCode = 1;
} else if (!check) {
  console.log(`rewrote ${differing.length} files in ${OUTPUT_DIR}`);
}
