import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Type } from '@sinclair/typebox';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { CrdDefinition } from './crd.js';
import { checkCrdFiles, crdFileName, renderCrdFile, writeCrdFiles } from './crd-files.js';

const schema = Type.Object({ spec: Type.Object({ size: Type.Integer() }) });

const widget: CrdDefinition = {
  group: 'example.org',
  kind: 'Widget',
  plural: 'widgets',
  scope: 'Namespaced',
  // Both versions share one schema object, which YAML would otherwise print as an anchor and alias.
  versions: [
    { name: 'v1', served: true, storage: true, schema },
    { name: 'v1beta1', served: true, storage: false, schema },
  ],
};
const gadget: CrdDefinition = { ...widget, kind: 'Gadget', plural: 'gadgets' };

const opts = { header: '# generated; do not edit\n---\n' };

describe('crdFileName', () => {
  it('is <group>_<plural>.yaml', () => {
    expect(crdFileName(widget)).toBe('example.org_widgets.yaml');
  });
});

describe('renderCrdFile', () => {
  it('writes the header verbatim, then the CRD without aliases', () => {
    const text = renderCrdFile(widget, opts);
    expect(text.startsWith('# generated; do not edit\n---\napiVersion: apiextensions.k8s.io/v1\n')).toBe(
      true,
    );
    expect(text).not.toMatch(/[&*]a\d/);
    const crd = parse(text);
    expect(crd.metadata).toEqual({ name: 'widgets.example.org' });
    expect(crd.spec.versions[1].schema).toEqual(crd.spec.versions[0].schema);
  });

  it('adds metadata.annotations only when some are given', () => {
    const keep = parse(
      renderCrdFile(widget, { ...opts, annotations: { 'helm.sh/resource-policy': 'keep' } }),
    );
    expect(keep.metadata.annotations).toEqual({ 'helm.sh/resource-policy': 'keep' });
    expect(parse(renderCrdFile(widget, { ...opts, annotations: {} })).metadata.annotations).toBeUndefined();
  });
});

describe('writeCrdFiles and checkCrdFiles', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'crd-files-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reports every file as drifted before writing, and none after', async () => {
    const out = join(dir, 'crds');
    expect(await checkCrdFiles([widget, gadget], out, opts)).toEqual([
      'example.org_widgets.yaml',
      'example.org_gadgets.yaml',
    ]);
    expect(await writeCrdFiles([widget, gadget], out, opts)).toEqual([
      join(out, 'example.org_widgets.yaml'),
      join(out, 'example.org_gadgets.yaml'),
    ]);
    expect(await readFile(join(out, 'example.org_gadgets.yaml'), 'utf8')).toBe(renderCrdFile(gadget, opts));
    expect(await checkCrdFiles([widget, gadget], out, opts)).toEqual([]);
  });

  it('names a file edited by hand, and a header change', async () => {
    await writeCrdFiles([widget, gadget], dir, opts);
    await writeFile(join(dir, 'example.org_gadgets.yaml'), `${renderCrdFile(gadget, opts)}# edited\n`);
    expect(await checkCrdFiles([widget, gadget], dir, opts)).toEqual(['example.org_gadgets.yaml']);
    expect(await checkCrdFiles([widget], dir, { header: '# other\n' })).toEqual(['example.org_widgets.yaml']);
  });
});
