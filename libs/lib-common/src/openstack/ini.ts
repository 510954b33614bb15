/**
 * INI documents as oslo.config and httpd-style services read them: `[section]` headers and
 * `key = value` lines. Values are kept as text (no type coercion), section and key order is
 * kept, comments and blank lines are dropped. Keys before any header belong to the section `''`.
 */
export type IniDocument = Map<string, Map<string, string>>;

/** Parses INI text. A line that is neither a header, a comment nor `key = value` is an error with its line number. */
export function parseIni(text: string): IniDocument {
  const doc: IniDocument = new Map();
  let section = '';
  let lineNo = 0;
  for (const raw of text.split(/\r?\n/)) {
    lineNo++;
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const header = /^\[([^\]]*)\]$/.exec(line);
    if (header) {
      section = (header[1] ?? '').trim();
      if (!doc.has(section)) doc.set(section, new Map());
      continue;
    }
    const eq = line.search(/[=:]/);
    if (eq <= 0)
      throw new SyntaxError(`INI line ${lineNo}: expected "key = value", got ${JSON.stringify(line)}`);
    const key = line.slice(0, eq).trim();
    const value = line.slice(eq + 1).trim();
    if (!doc.has(section)) doc.set(section, new Map());
    doc.get(section)?.set(key, value);
  }
  return doc;
}

/** Writes an INI document: `[section]` blocks separated by a blank line, `key = value` lines. */
export function formatIni(doc: IniDocument): string {
  const blocks: string[] = [];
  for (const [section, entries] of doc) {
    if (section === '' && entries.size === 0) continue;
    const lines = section === '' ? [] : [`[${section}]`];
    for (const [k, v] of entries) lines.push(`${k} = ${v}`);
    blocks.push(lines.join('\n'));
  }
  return blocks.length > 0 ? `${blocks.join('\n\n')}\n` : '';
}

/**
 * Merges INI texts section by section, key by key: later documents win, new sections and keys are
 * appended in the order they first appear, comments are left out (upstream
 * `ExtendCustomServiceConfig`). Typical use: `mergeIni(defaults, spec.customServiceConfig)`.
 */
export function mergeIni(...texts: ReadonlyArray<string | undefined>): string {
  const merged: IniDocument = new Map();
  for (const text of texts) {
    if (!text) continue;
    for (const [section, entries] of parseIni(text)) {
      const target = merged.get(section) ?? new Map<string, string>();
      for (const [k, v] of entries) target.set(k, v);
      merged.set(section, target);
    }
  }
  return formatIni(merged);
}
