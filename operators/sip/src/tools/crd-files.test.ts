import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { crdFreeFormObjects } from '@stackops/lib-common/schema';
import { checkCrdFiles } from '@stackops/lib-common/schema/files';
import { describe, expect, it } from 'vitest';
import {
  crdDefinitions,
  FREE_FORM_OBJECTS,
  OPTIONAL_FREE_FORM_OBJECTS,
  optionalCrdDefinitions,
} from '../api/crds.js';
import { chartDir, crdFileOptions, renderOptionalCrdTemplates } from './crd-files.js';

describe('generated chart files', () => {
  it('crds/ matches the TypeBox schema (run `npm run gen:crds` after changing the API)', async () => {
    expect(await checkCrdFiles(crdDefinitions, join(chartDir, 'crds'), crdFileOptions)).toEqual([]);
  });

  it('keeps unknown fields only in the objects documented as free-form, with why', () => {
    expect(crdFreeFormObjects(crdDefinitions)).toEqual(Object.keys(FREE_FORM_OBJECTS));
  });

  it("the chart's optional BareMetalHost CRD too: unknown fields only where documented", () => {
    expect(crdFreeFormObjects(optionalCrdDefinitions)).toEqual(Object.keys(OPTIONAL_FREE_FORM_OBJECTS));
  });

  it.each(renderOptionalCrdTemplates().map((f) => [f.path, f.content]))(
    '%s matches the TypeBox schema (run `npm run gen:crds` after changing the API)',
    (path, content) => {
      expect(readFileSync(join(chartDir, path), 'utf8')).toBe(content);
    },
  );

  it('the BareMetalHost CRD is guarded by installBareMetalHostCRD, skipped when another owner has it, and kept on uninstall', () => {
    const bmh = renderOptionalCrdTemplates().find((f) => f.path.includes('baremetalhosts'))!;
    expect(bmh.path.startsWith('templates/')).toBe(true);
    expect(bmh.content).toContain('{{- if and .Values.installBareMetalHostCRD (or (not $existing) $ours) }}');
    expect(bmh.content).toContain(
      'lookup "apiextensions.k8s.io/v1" "CustomResourceDefinition" "" "baremetalhosts.metal3.io"',
    );
    expect(bmh.content).toContain('helm.sh/resource-policy: keep');
  });
});
