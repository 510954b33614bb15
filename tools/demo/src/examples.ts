import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';
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

/**
 * `kubectl apply --server-side` of every file in examples/, in name order. Files without a
 * namespace (the upstream README examples, verbatim) land in `openstack`, as upstream's docs assume.
 */
export async function applyExamples(kubectl: string, kubeconfig: string): Promise<string[]> {
  const files = readdirSync(examplesDir)
    .filter((f) => f.endsWith('.yaml'))
    .sort();
  for (const f of files) {
    const path = join(examplesDir, f);
    const namespace = namesNamespaces(path) ? [] : ['-n', OPENSTACK_NAMESPACE];
    await run(kubectl, [
      '--kubeconfig',
      kubeconfig,
      'apply',
      '--server-side',
      '--field-manager=stackops-demo',
      ...namespace,
      '-f',
      path,
    ]);
  }
  return files;
}
