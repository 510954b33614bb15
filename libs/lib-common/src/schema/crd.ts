import type { TSchema } from '@sinclair/typebox';
import { boundInputSchema } from './bounds.js';

/** A CEL rule for `x-kubernetes-validations`, checked by the API server itself. */
export interface CelRule {
  rule: string;
  message: string;
  /** JSONPath of the field the message is about (API server 1.28+). */
  fieldPath?: string;
  reason?: 'FieldValueInvalid' | 'FieldValueForbidden' | 'FieldValueRequired' | 'FieldValueDuplicate';
  messageExpression?: string;
}

export interface PrinterColumn {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  jsonPath: string;
  description?: string;
  priority?: number;
}

export interface CrdVersion {
  name: string;
  served: boolean;
  storage: boolean;
  /** The whole object's schema: usually `Type.Object({ spec, status })`. */
  schema: TSchema;
  printerColumns?: PrinterColumn[];
  statusSubresource?: boolean;
  scaleSubresource?: { specReplicasPath: string; statusReplicasPath: string; labelSelectorPath?: string };
  deprecated?: boolean;
}

export interface CrdDefinition {
  group: string;
  kind: string;
  plural: string;
  singular?: string;
  listKind?: string;
  shortNames?: string[];
  categories?: string[];
  scope: 'Namespaced' | 'Cluster';
  versions: CrdVersion[];
}

type Json = Record<string, unknown>;

/** Keys TypeBox emits that a CRD structural schema does not accept. */
const DROPPED = new Set(['$id', '$schema', 'static', 'params', '$comment', 'examples']);

/**
 * Converts a TypeBox schema (JSON Schema) into a structural OpenAPI v3 schema that a CRD accepts:
 * unions of string literals become `enum`, `const` becomes a one-value enum, `Type.Record` keeps
 * `additionalProperties`, TypeBox's symbols and unsupported keywords are dropped. A union of
 * anything other than literals is refused, since structural schemas cannot express it.
 */
export function toOpenApiSchema(schema: unknown): Json {
  if (schema === null || typeof schema !== 'object') return schema as Json;
  const src = schema as Json;
  const literalUnion = (src['anyOf'] ?? src['oneOf']) as Json[] | undefined;
  if (literalUnion) {
    if (literalUnion.every((s) => 'const' in s)) {
      const values = literalUnion.map((s) => s['const']);
      const out: Json = { type: typeof values[0] === 'number' ? 'integer' : 'string', enum: values };
      copyAnnotations(src, out);
      return out;
    }
    if (!src['x-kubernetes-int-or-string']) {
      throw new Error(
        'a CRD schema cannot express a union of non-literal types; use x-kubernetes-int-or-string or an object',
      );
    }
  }
  const out: Json = {};
  for (const [key, value] of Object.entries(src)) {
    if (DROPPED.has(key)) continue;
    if (key === 'anyOf' || key === 'oneOf') continue;
    if (key === 'const') {
      out['enum'] = [value];
      continue;
    }
    if (key === 'properties') {
      out[key] = Object.fromEntries(Object.entries(value as Json).map(([k, v]) => [k, toOpenApiSchema(v)]));
    } else if (key === 'items' || (key === 'additionalProperties' && typeof value === 'object')) {
      out[key] = toOpenApiSchema(value);
    } else if (key === 'patternProperties') {
      // Type.Record(String, X) → additionalProperties: X
      const first = Object.values(value as Json)[0];
      out['additionalProperties'] = toOpenApiSchema(first);
    } else {
      out[key] = value;
    }
  }
  if (out['additionalProperties'] === false) delete out['additionalProperties'];
  if (out['properties'] && Object.keys(out['properties'] as Json).length === 0) delete out['properties'];
  if (
    out['type'] === 'object' &&
    !out['properties'] &&
    !out['additionalProperties'] &&
    !out['x-kubernetes-preserve-unknown-fields']
  ) {
    closeEmptyObject(out);
  }
  if (Array.isArray(out['required']) && out['required'].length === 0) delete out['required'];
  return out;
}

/**
 * The CEL rule that refuses every key of an object declared with no fields (a component switched
 * on by `{}`). It sits on the map's values, so the API server's message names each key in its path
 * (`spec.linuxBridge[bridgeMarkerHealthPort]`), for every client: pruning would drop an unknown key
 * with only a warning, or silently for a client that does not ask for strict validation.
 */
export const UNKNOWN_FIELD_RULE: CelRule = {
  rule: 'false',
  message: 'unknown field: this object takes no fields ({} switches it on)',
};

/**
 * An object with no declared fields is closed: a map (so its keys are kept and checked, not pruned)
 * whose every value {@link UNKNOWN_FIELD_RULE} refuses. A deliberately free-form object says so in
 * its own schema (`x-kubernetes-preserve-unknown-fields: true`) and is left open.
 */
function closeEmptyObject(out: Json): void {
  out['additionalProperties'] = {
    'x-kubernetes-int-or-string': true,
    'x-kubernetes-validations': [UNKNOWN_FIELD_RULE],
  };
  out['maxProperties'] = 8;
}

const isClosed = (schema: Json): boolean =>
  (
    ((schema['additionalProperties'] as Json | undefined)?.['x-kubernetes-validations'] as
      | CelRule[]
      | undefined) ?? []
  ).some((r) => r === UNKNOWN_FIELD_RULE || r.rule === UNKNOWN_FIELD_RULE.rule);

/**
 * The paths (`spec.a.b`, `spec.list[]`, `spec.map.*`) of every object that keeps unknown fields
 * without a closing rule: what a CRD stores and the operator may never read. Tests compare it with
 * the free-form objects the operator documents on purpose.
 */
export function freeFormObjects(schema: Json, path = ''): string[] {
  if (isClosed(schema)) return [];
  const found = schema['x-kubernetes-preserve-unknown-fields'] === true ? [path] : [];
  const children: [unknown, string][] = [
    ...Object.entries((schema['properties'] as Json | undefined) ?? {}).map(
      ([name, sub]): [unknown, string] => [sub, path === '' ? name : `${path}.${name}`],
    ),
    [schema['items'], `${path}[]`],
    [schema['additionalProperties'], `${path}.*`],
  ];
  for (const [sub, next] of children) {
    if (sub && typeof sub === 'object') found.push(...freeFormObjects(sub as Json, next));
  }
  return found;
}

function copyAnnotations(src: Json, out: Json): void {
  for (const key of ['description', 'default', 'x-kubernetes-validations']) {
    if (key in src) out[key] = src[key];
  }
}

/** The object schema with every field of `spec` (what users write) bounded: see bounds.ts. */
function withBoundedSpec(schema: Json): Json {
  const props = schema['properties'] as Json | undefined;
  const spec = props?.['spec'] as Json | undefined;
  if (!spec) return schema;
  return { ...schema, properties: { ...props, spec: boundInputSchema(spec) } };
}

/**
 * Builds the apiextensions.k8s.io/v1 CustomResourceDefinition object for a definition. Every spec
 * field without a bound of its own gets the default one (DEFAULT_INPUT_BOUNDS).
 */
export function buildCrd(def: CrdDefinition): Json {
  const singular = def.singular ?? def.kind.toLowerCase();
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${def.plural}.${def.group}` },
    spec: {
      group: def.group,
      names: {
        kind: def.kind,
        listKind: def.listKind ?? `${def.kind}List`,
        plural: def.plural,
        singular,
        ...(def.shortNames ? { shortNames: def.shortNames } : {}),
        ...(def.categories ? { categories: def.categories } : {}),
      },
      scope: def.scope,
      versions: def.versions.map((v) => ({
        name: v.name,
        served: v.served,
        storage: v.storage,
        ...(v.deprecated ? { deprecated: true } : {}),
        schema: { openAPIV3Schema: withBoundedSpec(toOpenApiSchema(v.schema)) },
        ...(v.printerColumns ? { additionalPrinterColumns: v.printerColumns } : {}),
        subresources: {
          ...(v.statusSubresource !== false ? { status: {} } : {}),
          ...(v.scaleSubresource ? { scale: v.scaleSubresource } : {}),
        },
      })),
    },
  };
}

/**
 * Each version's name and openAPIV3Schema as `buildCrd` writes them (what the API server checks),
 * for tests that walk a CRD's fields.
 */
export function crdVersionSchemas(def: CrdDefinition): { name: string; schema: Json }[] {
  const crd = buildCrd(def) as { spec: { versions: { name: string; schema: { openAPIV3Schema: Json } }[] } };
  return crd.spec.versions.map((v) => ({ name: v.name, schema: v.schema.openAPIV3Schema }));
}

/** One `[label, schema]` per version of each definition, labelled `<Kind> <version>`: a field walk's `it.each` cases. */
export const crdVersionCases = (defs: readonly CrdDefinition[]): [string, Json][] =>
  defs.flatMap((d) => crdVersionSchemas(d).map((v): [string, Json] => [`${d.kind} ${v.name}`, v.schema]));

/**
 * Every free-form object of the CRDs' served schemas as `Kind path`, each once whatever the number
 * of versions: what an operator's test compares with the objects it documents as free-form.
 */
export function crdFreeFormObjects(defs: readonly CrdDefinition[]): string[] {
  const found = defs.flatMap((def) =>
    def.versions.flatMap((v) =>
      freeFormObjects(withBoundedSpec(toOpenApiSchema(v.schema))).map((path) => `${def.kind} ${path}`),
    ),
  );
  return [...new Set(found)];
}
