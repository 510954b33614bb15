/**
 * The field walk: every field of a CRD's schema either works (a behaviour test names it) or the
 * API server refuses it (a CEL rule whose message says "not supported yet"). A field accepted and
 * ignored is the bug this catches: a test lists the coverage of every field and `walkFields`
 * reports what is neither.
 */

type Json = Record<string, unknown>;

/**
 * How a field is covered: `'refused'` (a CEL rule on the field or its parent refuses it, with a
 * message saying it is not supported yet), or the title of the behaviour test that proves it works
 * (checked against the test sources given to the walk). A covered field covers its descendants.
 */
export type FieldCoverage = 'refused' | string;

export interface FieldWalkOptions {
  /** Where the walk starts (default `spec`; `''` walks the whole object). */
  root?: string;
  /**
   * The test files' contents: a coverage by test title must appear in them as a string literal
   * (`'title'`, `"title"` or a template), so a renamed or deleted test fails the walk.
   */
  testSources?: readonly string[];
  /** Words a refusing CEL message must contain (default `not supported yet`, case-insensitive). */
  refusalText?: string;
}

export interface FieldWalkResult {
  /** Every field path under the root, parents before children (`spec.a`, `spec.a.b`, `spec.list[].x`, `spec.map.*`). */
  fields: string[];
  /** Fields neither refused nor proven by a test (nor under a covered parent). */
  uncovered: string[];
  /** Coverage entries marked refused whose schema has no refusing CEL rule. */
  notRefused: string[];
  /** Coverage entries naming a test that is not in the test sources. */
  missingTests: { field: string; test: string }[];
  /** Coverage entries for paths that are not fields of the schema (stale entries). */
  unknown: string[];
}

interface Node {
  path: string;
  name: string;
  schema: Json;
  parent: Json | undefined;
}

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Descends to the root (`spec`) through `properties`. */
function schemaAt(schema: Json, root: string): Json | undefined {
  let node: Json | undefined = schema;
  for (const part of root === '' ? [] : root.split('.')) {
    const props: unknown = node?.['properties'];
    node = isObject(props) && isObject(props[part]) ? props[part] : undefined;
  }
  return node;
}

function collect(schema: Json, path: string, out: Node[]): void {
  const props = schema['properties'];
  if (isObject(props)) {
    for (const [name, child] of Object.entries(props)) {
      if (!isObject(child)) continue;
      const childPath = path === '' ? name : `${path}.${name}`;
      out.push({ path: childPath, name, schema: child, parent: schema });
      collect(child, childPath, out);
    }
  }
  const items = schema['items'];
  if (isObject(items)) collect(items, `${path}[]`, out);
  const additional = schema['additionalProperties'];
  if (isObject(additional)) {
    const childPath = `${path}.*`;
    out.push({ path: childPath, name: '*', schema: additional, parent: schema });
    collect(additional, childPath, out);
  }
}

/** Every field path of an openAPIV3Schema under `root` (default `spec`), parents first. */
export function schemaFieldPaths(schema: Json, root = 'spec'): string[] {
  const start = schemaAt(schema, root);
  if (!start) return [];
  const nodes: Node[] = [];
  collect(start, root, nodes);
  return nodes.map((n) => n.path);
}

const rulesOf = (schema: Json | undefined): { rule?: unknown; message?: unknown }[] => {
  const rules = schema?.['x-kubernetes-validations'];
  return Array.isArray(rules) ? rules.filter(isObject) : [];
};

/** Whether a CEL rule on the field itself, or on its parent naming it, refuses it as not supported. */
function isRefused(node: Node, refusal: string): boolean {
  const says = (m: unknown) => typeof m === 'string' && m.toLowerCase().includes(refusal);
  if (rulesOf(node.schema).some((r) => says(r.message))) return true;
  const named = new RegExp(`\\b${node.name.replace(/[^A-Za-z0-9_]/g, '\\$&')}\\b`);
  return rulesOf(node.parent).some(
    (r) => says(r.message) && typeof r.rule === 'string' && named.test(r.rule),
  );
}

const quoted = (title: string) => [`'${title}'`, `"${title}"`, `\`${title}\``];

/**
 * Walks the fields of `schema` (a CRD version's openAPIV3Schema) under `options.root` and checks
 * them against `coverage`. The result lists every problem; `assertFieldsCovered` throws on any.
 */
export function walkFields(
  schema: Json,
  coverage: Readonly<Record<string, FieldCoverage>>,
  options: FieldWalkOptions = {},
): FieldWalkResult {
  const root = options.root ?? 'spec';
  const refusal = (options.refusalText ?? 'not supported yet').toLowerCase();
  const start = schemaAt(schema, root);
  const nodes: Node[] = [];
  if (start) collect(start, root, nodes);
  const byPath = new Map(nodes.map((n) => [n.path, n]));
  const covered = new Set(Object.keys(coverage));
  /** The field itself or any ancestor (`spec.a[].b` → `spec.a[]`, `spec.a`, `spec`) is in the coverage. */
  const isCovered = (path: string): boolean => {
    if (covered.has(path)) return true;
    for (let i = path.indexOf('.'); i > 0; i = path.indexOf('.', i + 1)) {
      const prefix = path.slice(0, i);
      if (covered.has(prefix) || covered.has(prefix.replace(/(\[\])+$/, ''))) return true;
    }
    return false;
  };
  const result: FieldWalkResult = {
    fields: nodes.map((n) => n.path),
    uncovered: [],
    notRefused: [],
    missingTests: [],
    unknown: [],
  };
  for (const n of nodes) if (!isCovered(n.path)) result.uncovered.push(n.path);
  for (const [field, how] of Object.entries(coverage)) {
    const node = byPath.get(field);
    if (!node) {
      result.unknown.push(field);
      continue;
    }
    if (how === 'refused') {
      if (!isRefused(node, refusal)) result.notRefused.push(field);
    } else if (
      options.testSources &&
      !options.testSources.some((src) => quoted(how).some((q) => src.includes(q)))
    ) {
      result.missingTests.push({ field, test: how });
    }
  }
  return result;
}

/** `walkFields`, throwing one error that lists every problem (for a test's single assertion). */
export function assertFieldsCovered(
  schema: Json,
  coverage: Readonly<Record<string, FieldCoverage>>,
  options: FieldWalkOptions = {},
): FieldWalkResult {
  const r = walkFields(schema, coverage, options);
  const lines = [
    ...r.uncovered.map((f) => `${f}: neither proven by a test nor refused`),
    ...r.notRefused.map((f) => `${f}: marked refused, but no CEL rule refuses it as not supported yet`),
    ...r.missingTests.map(({ field, test }) => `${field}: test "${test}" not found in the test sources`),
    ...r.unknown.map((f) => `${f}: not a field of the schema (stale coverage entry)`),
  ];
  if (lines.length > 0) throw new Error(`field walk: ${lines.length} problem(s)\n${lines.join('\n')}`);
  return r;
}
