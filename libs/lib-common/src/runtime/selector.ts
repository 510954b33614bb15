/** One requirement of a label selector, as the API server understands them. */
export type Requirement =
  | { key: string; op: '=' | '!='; value: string }
  | { key: string; op: 'in' | 'notin'; values: string[] }
  | { key: string; op: 'exists' | '!exists' };

export type LabelMatcher = (labels: Record<string, string> | undefined) => boolean;

/** Splits on commas that are not inside a `( … )` value set. */
function splitTopLevel(selector: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of selector) {
    if (ch === '(') depth += 1;
    if (ch === ')') depth -= 1;
    if (ch === ',' && depth === 0) {
      parts.push(current);
      current = '';
    } else current += ch;
  }
  parts.push(current);
  return parts.map((p) => p.trim()).filter((p) => p !== '');
}

function parseRequirement(part: string): Requirement {
  const set = /^([^\s!=()]+)\s+(in|notin)\s*\(([^)]*)\)$/.exec(part);
  if (set?.[1] && set[2] && set[3] !== undefined) {
    const values = set[3]
      .split(',')
      .map((v) => v.trim())
      .filter((v) => v !== '');
    return { key: set[1], op: set[2] as 'in' | 'notin', values };
  }
  const eq = /^([^\s!=]+)\s*(==|=|!=)\s*([^\s,]*)$/.exec(part);
  if (eq?.[1] && eq[2] && eq[3] !== undefined) {
    return { key: eq[1], op: eq[2] === '!=' ? '!=' : '=', value: eq[3] };
  }
  const not = /^!\s*([^\s!=()]+)$/.exec(part);
  if (not?.[1]) return { key: not[1], op: '!exists' };
  if (/^[^\s!=()]+$/.test(part)) return { key: part, op: 'exists' };
  throw new TypeError(`invalid label selector requirement: "${part}"`);
}

/** Parses `a=b,c!=d,e in (x,y),f notin (z),g,!h` into requirements (all must hold). */
export function parseLabelSelector(selector: string): Requirement[] {
  return splitTopLevel(selector).map(parseRequirement);
}

function holds(r: Requirement, labels: Record<string, string>): boolean {
  const has = Object.hasOwn(labels, r.key);
  const v = labels[r.key];
  switch (r.op) {
    case '=':
      return has && v === r.value;
    case '!=':
      return !has || v !== r.value;
    case 'in':
      return has && r.values.includes(v ?? '');
    case 'notin':
      return !has || !r.values.includes(v ?? '');
    case 'exists':
      return has;
    case '!exists':
      return !has;
  }
}

/** A predicate over labels; an empty or absent selector matches everything. */
export function labelMatcher(selector: string | Record<string, string> | undefined): LabelMatcher {
  if (selector === undefined) return () => true;
  const reqs: Requirement[] =
    typeof selector === 'string'
      ? parseLabelSelector(selector)
      : Object.entries(selector).map(([key, value]) => ({ key, op: '=' as const, value }));
  if (reqs.length === 0) return () => true;
  return (labels) => reqs.every((r) => holds(r, labels ?? {}));
}

/** Formats equality labels as a selector string for the API (`a=b,c=d`). */
export function formatLabelSelector(labels: Record<string, string>): string {
  return Object.entries(labels)
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
}
