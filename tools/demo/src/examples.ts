import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { KubeObject } from '@stackops/lib-common/client';
import { parseAllDocuments, stringify } from 'yaml';
import { run } from './exec.js';
import { OPENSTACK_NAMESPACE } from './targets.js';

export const examplesDir = resolve(import.meta.dirname, '../examples');

/** True when some object in the file names its own namespace (kubectl refuses a conflicting -n). */
function namesNamespaces(file: string): boolean {
  return parseAllDocuments(readFileSync(file, 'utf8')).some((doc) => {
    const obj = doc.toJS() as { metadata?: { namespace?: string } } | null;
    return Boolean(obj?.metadata?.namespace);
  });
}

/** An example's object as the demo applies it (e.g. without `spec.containerImage`). */
export type ExampleEdit = (obj: KubeObject & { spec?: Record<string, unknown> }, file: string) => KubeObject;

/** The file's objects, each through `edit`, written to `dir`. */
function edited(file: string, dir: string, edit: ExampleEdit): string {
  const name = file.split('/').pop() ?? 'example.yaml';
  const docs = parseAllDocuments(readFileSync(file, 'utf8')).map((doc) => {
    const obj = doc.toJS() as (KubeObject & { spec?: Record<string, unknown> }) | null;
    return stringify(obj ? edit(obj, name) : obj);
  });
  const out = join(dir, name);
  writeFileSync(out, docs.join('---\n'));
  return out;
}

/**
 * `kubectl apply --server-side` of every file in examples/, in name order. Files without a
 * namespace (the upstream README examples, verbatim) land in `openstack`, as upstream's docs assume.
 * `dropContainerImage` leaves out the examples' `containerImage` so the operators' defaults apply;
 * `edit` changes an object before it is applied; `only` picks files by name.
 */
export async function applyExamples(
  kubectl: string,
  kubeconfig: string,
  opts: { dropContainerImage?: boolean; edit?: ExampleEdit; only?: (file: string) => boolean } = {},
): Promise<string[]> {
  const files = readdirSync(examplesDir)
    .filter((f) => f.endsWith('.yaml') && (opts.only?.(f) ?? true))
    .sort();
  const scratch = mkdtempSync(join(tmpdir(), 'stackops-demo-examples-'));
  try {
    for (const f of files) await applyExample(kubectl, kubeconfig, join(examplesDir, f), scratch, opts);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return files;
}

async function applyExample(
  kubectl: string,
  kubeconfig: string,
  file: string,
  scratch: string,
  opts: { dropContainerImage?: boolean; edit?: ExampleEdit },
): Promise<void> {
  const namespace = namesNamespaces(file) ? [] : ['-n', OPENSTACK_NAMESPACE];
  const { dropContainerImage, edit } = opts;
  const path =
    dropContainerImage || edit
      ? edited(file, scratch, (obj, name) => {
          const out = edit ? edit(obj, name) : obj;
          const spec = (out as { spec?: Record<string, unknown> }).spec;
          if (dropContainerImage && spec) delete spec['containerImage'];
          return out;
        })
      : file;
  await applyFile(kubectl, kubeconfig, path, namespace);
}

/** `kubectl apply --server-side` of a file, as the demo's field manager. */
export async function applyFile(
  kubectl: string,
  kubeconfig: string,
  file: string,
  extra: string[] = [],
): Promise<void> {
  await run(kubectl, [
    '--kubeconfig',
    kubeconfig,
    'apply',
    '--server-side',
    '--field-manager=stackops-demo',
    ...extra,
    '-f',
    file,
  ]);
}
