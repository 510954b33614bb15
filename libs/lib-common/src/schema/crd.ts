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
  // An object with no declared fields is free-form; without this the API server would prune it empty.
  if (out['properties'] && Object.keys(out['properties'] as Json).length === 0) delete out['properties'];
  if (
    out['type'] === 'object' &&
    !out['properties'] &&
    !out['additionalProperties'] &&
    !out['x-kubernetes-preserve-unknown-fields']
  ) {
    out['x-kubernetes-preserve-unknown-fields'] = true;
  }
  if (Array.isArray(out['required']) && out['required'].length === 0) delete out['required'];
  return out;
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
