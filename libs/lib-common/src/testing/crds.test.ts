import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readCrds } from './crds.js';

const dir = mkdtempSync(join(tmpdir(), 'read-crds-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const templated = join(dir, 'crd-widgets.yaml');
writeFileSync(
  templated,
  [
    '{{- if .Values.widgets.enabled }}',
    'apiVersion: apiextensions.k8s.io/v1',
    'kind: CustomResourceDefinition',
    'metadata:',
    '  name: widgets.example.org',
    '  {{- with .Values.annotations }}',
    '  {{- end }}',
    '---',
    'apiVersion: v1',
    'kind: ConfigMap',
    'metadata:',
    '  name: not-a-crd',
    '{{- end }}',
    '',
  ].join('\n'),
);

describe('readCrds', () => {
  it('refuses a chart template as it is', () => {
    expect(() => readCrds(templated)).toThrow(/crd-widgets\.yaml/);
  });

  it('reads a chart template without its {{ }} lines when asked, CRDs only', () => {
    const crds = readCrds(templated, { dropTemplateLines: true });
    expect(crds.map((c) => c.metadata.name)).toEqual(['widgets.example.org']);
  });
});
