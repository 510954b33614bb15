import { Eta } from 'eta';
import { isPlainObject } from '../client/json.js';
import type { KubeObject } from '../client/types.js';

/**
 * Config files are rendered with Eta (ADR 0004). Settings: no HTML escaping (these are config
 * files), no automatic newline trimming (a `-%>` closing tag drops the newline after a control
 * tag when wanted), `it` is the data. Reading a key the data does not have is an error naming the
 * key, as upstream's `missingkey=error`, instead of a silent "undefined" in a config file.
 */
function engine(): Eta {
  return new Eta({ autoEscape: false, autoTrim: false, cache: false });
}

export class TemplateError extends Error {
  override readonly name = 'TemplateError';
  constructor(
    readonly template: string,
    cause: unknown,
  ) {
    super(`template ${template}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}

/** Data whose missing keys throw when a template reads them (nested objects included). */
function strict<T extends object>(value: T, path: string): T {
  return new Proxy(value, {
    get(target, key, receiver) {
      const v: unknown = Reflect.get(target, key, receiver);
      if (typeof key !== 'string') return v;
      if (!(key in target)) throw new Error(`missing key ${path}.${key}`);
      return (isPlainObject(v) || Array.isArray(v)) && v !== null ? strict(v as object, `${path}.${key}`) : v;
    },
  });
}

/** Renders one template text. */
export function renderString(template: string, data: object, name = '<string>'): string {
  try {
    return engine().renderString(template, strict(data, 'it'));
  } catch (err) {
    throw new TemplateError(name, err);
  }
}

const GO_ACTION = /\{\{-?\s*(.*?)\s*-?\}\}/gs;
const GO_FIELD = /^\.[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;

function lookup(data: object, path: string): unknown {
  let v: unknown = data;
  for (const key of path.slice(1).split('.')) {
    if (!isPlainObject(v) || !Object.hasOwn(v, key)) return undefined;
    v = v[key];
  }
  return v;
}

/**
 * Substitutes upstream-style `{{ .Key }}` / `{{ .Key.Sub }}` placeholders in user-supplied text
 * with scalar parameters. Nothing is evaluated: user text (`customServiceConfig`,
 * `defaultConfigOverwrite`) must never run code in the operator. As upstream, text that does not
 * render — any other `{{ … }}` action, an unknown key, a non-scalar value — is kept verbatim.
 */
export function substituteParameters(text: string, data: object): string {
  let failed = false;
  const out = text.replace(GO_ACTION, (whole, expr: string) => {
    const v = GO_FIELD.test(expr) ? lookup(data, expr) : undefined;
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return String(v);
    failed = true;
    return whole;
  });
  return failed ? text : out;
}

/**
 * Extra files given as strings (upstream `CustomData`, e.g. `custom.conf` from
 * `customServiceConfig`): each gets `substituteParameters` — parameter substitution only, never
 * template code, since this text comes from users.
 */
export function renderCustomData(
  values: Readonly<Record<string, string>>,
  data: object,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of Object.keys(values).sort()) out[key] = substituteParameters(values[key] ?? '', data);
  return out;
}

export interface ConfigObjectInput {
  name: string;
  namespace: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  /** File name → text. */
  data: Readonly<Record<string, string>>;
}

function meta(c: ConfigObjectInput) {
  return {
    name: c.name,
    namespace: c.namespace,
    ...(c.labels && Object.keys(c.labels).length > 0 ? { labels: { ...c.labels } } : {}),
    ...(c.annotations && Object.keys(c.annotations).length > 0 ? { annotations: { ...c.annotations } } : {}),
  };
}

function sorted(
  data: Readonly<Record<string, string>>,
  encode: (s: string) => string,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of Object.keys(data).sort()) out[k] = encode(data[k] ?? '');
  return out;
}

/**
 * An Opaque Secret holding files. Values go in `data` (base64), not `stringData`: the stored
 * object then equals what was sent, so an unchanged Secret is recognised and not rewritten.
 */
export function buildConfigSecret(c: ConfigObjectInput): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: meta(c),
    type: 'Opaque',
    data: sorted(c.data, (s) => Buffer.from(s, 'utf8').toString('base64')),
  };
}

/** A ConfigMap holding files. */
export function buildConfigMap(c: ConfigObjectInput): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: meta(c), data: sorted(c.data, (s) => s) };
}
