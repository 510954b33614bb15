import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chartCrdDir, renderCrds } from './gen-crds.js';

describe('generated CRDs', () => {
  it("match the chart's crds/ folder (run `npm run gen:crds` after changing the API)", async () => {
    for (const [file, text] of renderCrds()) {
      if (process.env['WRITE_CRDS'] === '1') await writeFile(join(chartCrdDir, file), text);
      const onDisk = await readFile(join(chartCrdDir, file), 'utf8').catch(() => '');
      expect(onDisk, `${file} drifted from the schema`).toBe(text);
    }
  });
});
