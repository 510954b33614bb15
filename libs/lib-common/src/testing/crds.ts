import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { Kinds } from '../client/kinds.js';
import type { KubeClient, KubeObject } from '../client/types.js';
import { waitFor } from './wait.js';

export interface ReadCrdsOptions {
  /**
   * Drop the lines whose trimmed start is `{{` first: a CRD shipped as a chart template behind
   * `{{- if … }}` guards (Helm's crds/ folder cannot be conditional) then parses as plain YAML.
   */
  dropTemplateLines?: boolean;
}

/** Reads every CRD document from a file or from the *.yaml / *.yml files of a folder (a chart's crds/). */
export function readCrds(path: string, opts: ReadCrdsOptions = {}): KubeObject[] {
  const files = statSync(path).isDirectory()
    ? readdirSync(path)
        .filter((f) => /\.ya?ml$/.test(f))
        .sort()
        .map((f) => join(path, f))
    : [path];
  const crds: KubeObject[] = [];
  for (const file of files) {
    let text = readFileSync(file, 'utf8');
    if (opts.dropTemplateLines) {
      text = text
        .split('\n')
        .filter((l) => !l.trimStart().startsWith('{{'))
        .join('\n');
    }
    for (const doc of parseAllDocuments(text)) {
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
 * Installs (server-side applies, as plain JSON, so no schema extension is lost) CRDs and waits
 * until each is Established. `source` is a file or folder (a chart's crds/, read by `readCrds`) or
 * the CRD objects themselves (e.g. from `readCrds(file, { dropTemplateLines: true })`). Resolves
 * with the CRD names.
 */
export async function installCrds(
  client: KubeClient,
  source: string | readonly KubeObject[],
  opts: { timeoutMs?: number } = {},
): Promise<string[]> {
  const crds = typeof source === 'string' ? readCrds(source) : source;
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
