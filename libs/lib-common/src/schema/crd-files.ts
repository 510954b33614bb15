import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { buildCrd, type CrdDefinition } from './crd.js';

export interface CrdFileOptions {
  /** Text written verbatim before the YAML document, e.g. a "generated, do not edit" comment and `---`. */
  header: string;
  /** metadata.annotations of the CRD (none when absent or empty). */
  annotations?: Record<string, string>;
}

/** The file name of a CRD in a chart's crds/ folder: `<group>_<plural>.yaml`. */
export const crdFileName = (def: Pick<CrdDefinition, 'group' | 'plural'>): string =>
  `${def.group}_${def.plural}.yaml`;

/** The text of a generated CRD file: the header, then the CRD as YAML (no line folding, no aliases). */
export function renderCrdFile(def: CrdDefinition, opts: CrdFileOptions): string {
  const crd = buildCrd(def) as { metadata: Record<string, unknown> };
  if (opts.annotations && Object.keys(opts.annotations).length > 0)
    crd.metadata['annotations'] = opts.annotations;
  return opts.header + stringify(crd, { lineWidth: 0, aliasDuplicateObjects: false });
}

/** Writes one file per CRD into `dir` (created when missing); returns the paths written. */
export async function writeCrdFiles(
  defs: readonly CrdDefinition[],
  dir: string,
  opts: CrdFileOptions,
): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const written: string[] = [];
  for (const def of defs) {
    const path = join(dir, crdFileName(def));
    await writeFile(path, renderCrdFile(def, opts));
    written.push(path);
  }
  return written;
}

/**
 * The file names in `dir` that differ from what `writeCrdFiles` would write (missing files included);
 * empty when the folder is up to date. For the drift test every operator keeps next to its schemas.
 */
export async function checkCrdFiles(
  defs: readonly CrdDefinition[],
  dir: string,
  opts: CrdFileOptions,
): Promise<string[]> {
  const drifted: string[] = [];
  for (const def of defs) {
    const name = crdFileName(def);
    const onDisk = await readFile(join(dir, name), 'utf8').catch(() => undefined);
    if (onDisk !== renderCrdFile(def, opts)) drifted.push(name);
  }
  return drifted;
}
