type Json = Record<string, unknown>;

/**
 * The largest input a CRD accepts where a field names no bound of its own. Every string, list, map
 * and number a user writes reaches the operator's memory and the objects it builds, so none is
 * unbounded: a tenant must not be able to make a shared operator render, cache or retry something
 * the API server will refuse as too large.
 */
export interface InputBounds {
  /** `maxLength` of a string: names, URLs, images, selectors. */
  string: number;
  /** `maxItems` of a list. */
  items: number;
  /** `maxProperties` of a map. */
  properties: number;
  /** `maximum` of an integer or number with no other bound. */
  number: number;
}

export const DEFAULT_INPUT_BOUNDS: InputBounds = {
  string: 4096,
  items: 256,
  properties: 256,
  number: 2_147_483_647,
};

/**
 * A configuration file written by the user (`customServiceConfig`, `defaultConfigOverwrite`
 * values): the operator renders it into one Secret, which holds at most 1 MiB.
 */
export const CONFIG_TEXT_MAX_LENGTH = 256 * 1024;

const isMap = (s: Json) => s['type'] === 'object' && typeof s['additionalProperties'] === 'object';

/** `schema` (structural OpenAPI) with a bound on every field that has none; explicit ones are kept. */
export function boundInputSchema(schema: Json, bounds: InputBounds = DEFAULT_INPUT_BOUNDS): Json {
  const out: Json = { ...schema };
  const type = out['type'];
  if (type === 'string' && !('enum' in out) && !('maxLength' in out)) out['maxLength'] = bounds.string;
  if ((type === 'integer' || type === 'number') && !('maximum' in out) && !('enum' in out))
    out['maximum'] = bounds.number;
  if (type === 'array') {
    if (!('maxItems' in out)) out['maxItems'] = bounds.items;
    if (out['items']) out['items'] = boundInputSchema(out['items'] as Json, bounds);
  }
  if (isMap(out)) {
    if (!('maxProperties' in out)) out['maxProperties'] = bounds.properties;
    out['additionalProperties'] = boundInputSchema(out['additionalProperties'] as Json, bounds);
  }
  if (out['properties']) {
    out['properties'] = Object.fromEntries(
      Object.entries(out['properties'] as Json).map(([k, v]) => [k, boundInputSchema(v as Json, bounds)]),
    );
  }
  return out;
}

/** Paths of fields in `schema` without a bound (what `boundInputSchema` would add), for tests. */
export function unboundedFields(schema: Json, path = ''): string[] {
  const type = schema['type'];
  const here =
    (type === 'string' && !('enum' in schema) && !('maxLength' in schema)) ||
    ((type === 'integer' || type === 'number') && !('maximum' in schema) && !('enum' in schema)) ||
    (type === 'array' && !('maxItems' in schema)) ||
    (isMap(schema) && !('maxProperties' in schema))
      ? [path || '.']
      : [];
  const items =
    type === 'array' && schema['items'] ? unboundedFields(schema['items'] as Json, `${path}[]`) : [];
  const values = isMap(schema) ? unboundedFields(schema['additionalProperties'] as Json, `${path}{}`) : [];
  const props = Object.entries((schema['properties'] as Json | undefined) ?? {}).flatMap(([k, v]) =>
    unboundedFields(v as Json, `${path}.${k}`),
  );
  return [...here, ...items, ...values, ...props];
}
