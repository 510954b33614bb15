import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { run } from './exec.js';
import { OPENSTACK_NAMESPACE } from './targets.js';

export const examplesDir = resolve(import.meta.dirname, '../examples');

/**
 * `kubectl apply --server-side` of every file in examples/, in name order. Files without a
 * namespace (the upstream README examples) land in `openstack`, as upstream's docs assume.
 */
export async function applyExamples(kubectl: string, kubeconfig: string): Promise<string[]> {
  const files = readdirSync(examplesDir)
    .filter((f) => f.endsWith('.yaml'))
    .sort();
  for (const f of files) {
    await run(kubectl, [
      '--kubeconfig',
      kubeconfig,
      'apply',
      '--server-side',
      '--field-manager=stackops-demo',
      '-n',
      OPENSTACK_NAMESPACE,
      '-f',
      join(examplesDir, f),
    ]);
  }
  return files;
}
