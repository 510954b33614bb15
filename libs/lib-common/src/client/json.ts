/** Plain-JSON helpers shared by the resource helpers: comparison, stable serialisation, merge-patch diff. */

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Deep equality of JSON values: object key order is ignored, array order is not, undefined keys count as absent. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => deepEqual(x, b[i]));
  }
  if (isPlainObject(a) && isPlainObject(b)) {
    const ka = Object.keys(a).filter((k) => a[k] !== undefined);
    const kb = Object.keys(b).filter((k) => b[k] !== undefined);
    if (ka.length !== kb.length) return false;
    return ka.every((k) => Object.hasOwn(b, k) && deepEqual(a[k], b[k]));
  }
  return false;
}

/**
 * Values the API server drops on the way in (`omitempty`): a desired value like this matches an
 * absent live field.
 */
function isEmptyValue(v: unknown): boolean {
  return (
    v === undefined ||
    v === null ||
    v === '' ||
    v === false ||
    (Array.isArray(v) && v.length === 0) ||
    (isPlainObject(v) && Object.keys(v).every((k) => isEmptyValue(v[k])))
  );
}

/**
 * Whether every field set in `desired` has the same value in `live` (fields the server added are
 * ignored). Arrays must have the same length and match element by element. Used to skip writes
 * whose result would be what the object already is.
 */
export function isSubset(desired: unknown, live: unknown): boolean {
  if (live === undefined || live === null) return isEmptyValue(desired);
  if (Array.isArray(desired)) {
    if (!Array.isArray(live)) return false;
    return desired.length === live.length && desired.every((d, i) => isSubset(d, live[i]));
  }
  if (isPlainObject(desired)) {
    if (!isPlainObject(live)) return false;
    return Object.keys(desired).every((k) => isSubset(desired[k], live[k]));
  }
  return desired === live || (isEmptyValue(desired) && isEmptyValue(live));
}

/** JSON with object keys sorted at every level, so equal values serialise to equal text. */
export function stableStringify(value: unknown): string {
  return JSON.stringify(sortKeys(value)) ?? 'null';
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map((v) => (v === undefined ? null : sortKeys(v)));
  if (isPlainObject(value)) {
    if (typeof (value as { toJSON?: unknown }).toJSON === 'function') {
      return sortKeys((value as { toJSON: () => unknown }).toJSON());
    }
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value).sort()) if (value[k] !== undefined) out[k] = sortKeys(value[k]);
    return out;
  }
  return value;
}

/**
 * The RFC 7386 JSON merge patch that turns `from` into `to`: changed keys carry their new value,
 * removed keys carry null, arrays are replaced whole. `undefined` when nothing differs.
 */
export function mergePatchDiff(from: unknown, to: unknown): unknown {
  if (!isPlainObject(from) || !isPlainObject(to)) return deepEqual(from, to) ? undefined : (to ?? null);
  const patch: Record<string, unknown> = {};
  for (const k of Object.keys(from)) {
    if (from[k] !== undefined && to[k] === undefined) patch[k] = null;
  }
  for (const k of Object.keys(to)) {
    if (to[k] === undefined) continue;
    const d = from[k] === undefined ? to[k] : mergePatchDiff(from[k], to[k]);
    if (d !== undefined) patch[k] = d;
  }
  return Object.keys(patch).length > 0 ? patch : undefined;
}
