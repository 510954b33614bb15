import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { Kinds } from '../client/kinds.js';
import type { KubeClient, KubeObject } from '../client/types.js';
import { waitFor } from './wait.js';

/** Reads every CRD document from a file or from the *.yaml / *.yml files of a folder (a chart's crds/). */
export function readCrds(path: string): KubeObject[] {
  const files = statSync(path).isDirectory()
    ? readdirSync(path)
        .filter((f) => /\.ya?ml$/.test(f))
        .sort()
        .map((f) => join(path, f))
    : [path];
  const crds: KubeObject[] = [];
  for (const file of files) {
    for (const doc of parseAllDocuments(readFileSync(file, 'utf8'))) {
      if (doc.errors.length) throw new Error(`${file}: ${doc.errors[0]?.message}`);
      const obj = doc.toJS() as KubeObject | null;
      if (obj?.kind === 'CustomResourceDefinition') crds.push(obj);
    }
  }
  return crds;
}

const established = (crd: KubeObject | undefined): boolean => {
  const conditions = (crd?.['status'] as { conditions?: { type: string; status: string }[] } | undefined)
    ?.conditions;
  return conditions?.some((c) => c.type === 'Established' && c.status === 'True') ?? false;
};

/**
 * Installs (server-side applies, as plain JSON, so no schema extension is lost) the CRDs of a
 * chart's crds/ folder and waits until each is Established. Resolves with the CRD names.
 */
export async function installCrds(
  client: KubeClient,
  path: string,
  opts: { timeoutMs?: number } = {},
): Promise<string[]> {
  const crds = readCrds(path);
  for (const crd of crds) await client.apply(Kinds.CustomResourceDefinition, crd, { force: true });
  const names = crds.map((c) => c.metadata.name ?? '');
  for (const name of names) {
    await waitFor(client, Kinds.CustomResourceDefinition, { name }, established, {
      description: 'Established',
      timeoutMs: opts.timeoutMs ?? 30_000,
    });
  }
  return names;
}
