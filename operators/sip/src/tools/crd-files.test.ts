import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { renderChartFiles } from './crd-files.js';

const chartDir = resolve(dirname(fileURLToPath(import.meta.url)), '../../../../charts/sip-operator');

describe('generated chart files', () => {
  it.each(renderChartFiles().map((f) => [f.path, f.content]))(
    '%s matches the TypeBox schema (run `npm run gen:crds` after changing the API)',
    (path, content) => {
      expect(readFileSync(join(chartDir, path), 'utf8')).toBe(content);
    },
  );

  it('the BareMetalHost CRD is guarded by installBareMetalHostCRD, skipped when another owner has it, and kept on uninstall', () => {
    const bmh = renderChartFiles().find((f) => f.path.includes('baremetalhosts'))!;
    expect(bmh.path.startsWith('templates/')).toBe(true);
    expect(bmh.content).toContain('{{- if and .Values.installBareMetalHostCRD (or (not $existing) $ours) }}');
    expect(bmh.content).toContain(
      'lookup "apiextensions.k8s.io/v1" "CustomResourceDefinition" "" "baremetalhosts.metal3.io"',
    );
    expect(bmh.content).toContain('helm.sh/resource-policy: keep');
  });
});
