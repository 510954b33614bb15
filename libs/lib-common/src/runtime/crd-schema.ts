import type { Logger } from 'pino';
import { isForbidden } from '../client/errors.js';
import { Kinds } from '../client/kinds.js';
import type { KubeClient, KubeObject } from '../client/types.js';
import { Informer } from './informer.js';

/**
 * The condition a CR carries while the installed CRD of its kind is not the one its operator was
 * built for (ADR 0037). Absent otherwise; it never takes part in Ready.
 */
export const CRD_SCHEMA_CONDITION = 'CRDSchemaCurrent';
/** Its reason, and the reason of the Warning Event told once per change. */
export const CRD_SCHEMA_REASON = 'CRDSchemaMismatch';

type Json = Record<string, unknown>;

interface CrdVersionJson {
  name: string;
  served?: boolean;
  schema?: { openAPIV3Schema?: unknown };
}

interface CrdJson {
  metadata?: { name?: string };
  spec?: { versions?: CrdVersionJson[] };
}

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** JSON with object keys sorted: two schemas are the same when their canonical texts are. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (isObject(v))
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`)
      .join(',')}}`;
  return JSON.stringify(v) ?? 'null';
}

interface Walked {
  fields: Set<string>;
  rules: Set<string>;
  /** Paths whose unknown fields the API server keeps unchecked (`x-kubernetes-preserve-unknown-fields`). */
  preserved: Set<string>;
}

const walked = (): Walked => ({ fields: new Set(), rules: new Set(), preserved: new Set() });

/** Every field path of a schema (`spec.replicas`, `spec.tls.api[]`), every CEL rule as `path: rule`. */
function walk(schema: unknown, path: string, found: Walked): void {
  if (!isObject(schema)) return;
  if (schema['x-kubernetes-preserve-unknown-fields'] === true) found.preserved.add(path);
  const validations = schema['x-kubernetes-validations'];
  if (Array.isArray(validations))
    for (const v of validations) if (isObject(v)) found.rules.add(`${path || '.'}: ${String(v['rule'])}`);
  const props = schema['properties'];
  if (isObject(props))
    for (const [k, sub] of Object.entries(props)) {
      const p = path ? `${path}.${k}` : k;
      found.fields.add(p);
      walk(sub, p, found);
    }
  if (isObject(schema['items'])) walk(schema['items'], `${path}[]`, found);
  if (isObject(schema['additionalProperties'])) walk(schema['additionalProperties'], `${path}.*`, found);
}

const FIELDS_SHOWN = 3;
const some = (paths: string[]): string =>
  paths.length <= FIELDS_SHOWN
    ? paths.join(', ')
    : `${paths.slice(0, FIELDS_SHOWN).join(', ')} and ${paths.length - FIELDS_SHOWN} more`;

/** What differs in one version's schema, in words; undefined when the schemas are the same. */
function versionDifference(name: string, expected: unknown, live: unknown): string | undefined {
  if (canonical(expected) === canonical(live)) return undefined;
  const ours = walked();
  const theirs = walked();
  walk(expected, '', ours);
  walk(live, '', theirs);
  const missingRules = [...ours.rules].filter((r) => !theirs.rules.has(r)).length;
  const missingFields = [...ours.fields].filter((f) => !theirs.fields.has(f));
  // A field under a preserve-unknown-fields object of theirs is kept, but nothing checks it.
  const unchecked = (f: string) =>
    [...theirs.preserved].some((p) => p === '' || f === p || f.startsWith(`${p}.`) || f.startsWith(`${p}[]`));
  const pruned = missingFields.filter((f) => !unchecked(f));
  const keptUnchecked = missingFields.filter(unchecked);
  const unknownFields = [...theirs.fields].filter((f) => !ours.fields.has(f));
  const parts: string[] = [];
  if (missingRules) parts.push(`${missingRules} of our ${ours.rules.size} validation rules are missing`);
  if (pruned.length)
    parts.push(`${pruned.length} of our fields are missing (pruned on write: ${some(pruned)})`);
  if (keptUnchecked.length)
    parts.push(`${keptUnchecked.length} of our fields are not checked (${some(keptUnchecked)})`);
  if (unknownFields.length)
    parts.push(`${unknownFields.length} fields we do not know are accepted (${some(unknownFields)})`);
  if (!parts.length) parts.push('types, bounds or defaults differ');
  return `${name}: ${parts.join('; ')}`;
}

/**
 * How the live CRD differs from the one an operator was built for, in words (what a condition
 * message says), or undefined when every version we serve has our schema. Only what the API
 * server enforces is compared — served versions and their OpenAPI schemas (CEL rules included) —
 * so server-set fields (status, metadata, conversion defaults) and printer columns never count.
 */
export function crdSchemaDifference(expected: KubeObject, live: KubeObject | undefined): string | undefined {
  const liveVersions = (live as CrdJson | undefined)?.spec?.versions ?? [];
  const diffs: string[] = [];
  for (const v of (expected as CrdJson).spec?.versions ?? []) {
    if (!v.served) continue;
    const l = liveVersions.find((x) => x.name === v.name);
    if (!l?.served) {
      diffs.push(`${v.name}: not served`);
      continue;
    }
    const d = versionDifference(v.name, v.schema?.openAPIV3Schema, l.schema?.openAPIV3Schema);
    if (d) diffs.push(d);
  }
  return diffs.length ? diffs.join('; ') : undefined;
}

export interface CrdSchemaWatchOptions {
  /** The fix a message names, e.g. `re-apply charts/keystone-operator/crds (kubectl replace -f)`. */
  fix: string;
  logger?: Logger;
}

/**
 * Watches the operator's own CRDs by name (`fieldSelector=metadata.name=<crd>`, RBAC with
 * `resourceNames`) and tells, per CRD, whether the installed schema is the one the operator was
 * built for. Another installer may replace it — openstack-operator re-applies its bundled CRDs on
 * each of its upgrades — which silently drops our CEL rules and prunes our extra fields. Kept out
 * of the shared cache: a CRD this process may not watch (an older chart) must not hold readiness.
 */
export class CrdSchemaWatch {
  /** CRD objects (`buildCrd` output, or read from the chart's files) by name; built on `start()`. */
  private readonly expected = new Map<string, KubeObject>();
  private readonly informers: Informer[] = [];
  private readonly listeners = new Set<(crd: string) => void>();
  private readonly differences = new Map<string, string>();
  private started = false;

  /**
   * `crds` is called once, when the watch starts: building the CRDs walks every schema, work that
   * has no place in the operator's start-up when nothing reads the verdicts before its caches sync.
   */
  constructor(
    private readonly client: KubeClient,
    private readonly crds: () => readonly object[],
    private readonly opts: CrdSchemaWatchOptions,
  ) {}

  /** The CRD names watched. */
  get names(): string[] {
    return [...this.expected.keys()];
  }

  /** The condition message for CRs served by `crd` while its schema is not ours, else undefined. */
  mismatch(crd: string): string | undefined {
    const diff = this.differences.get(crd);
    if (!diff) return undefined;
    return (
      `CustomResourceDefinition ${crd} is not the schema this operator was built for (${diff}): ` +
      `another installer re-applied an older or upstream schema, so the API server no longer checks ` +
      `what this operator expects; ${this.opts.fix}`
    );
  }

  /** Calls `fn` with the CRD's name whenever its verdict changes; returns the unsubscribe. */
  onChange(fn: (crd: string) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /**
   * Starts one watch per CRD, in the background: the verdicts come as the watches sync (listeners
   * hear every change). A CRD this process may not list (an older chart's RBAC) is logged once and
   * left unwatched; any other error is the informer's to retry.
   */
  start(): void {
    if (this.started) return;
    this.started = true;
    if (!this.expected.size)
      for (const c of this.crds() as KubeObject[])
        if (c.metadata?.name) this.expected.set(c.metadata.name, c);
    for (const name of this.names) void this.watch(name);
  }

  private async watch(name: string): Promise<void> {
    const fieldSelector = `metadata.name=${name}`;
    try {
      await this.client.list(Kinds.CustomResourceDefinition, { fieldSelector, limit: 1 });
    } catch (err) {
      if (isForbidden(err)) {
        this.opts.logger?.warn(
          { crd: name },
          "cannot watch the operator's own CustomResourceDefinition (forbidden: the chart's RBAC predates this version); a replaced schema is not reported",
        );
        return;
      }
    }
    if (!this.started) return;
    const informer = new Informer(this.client, Kinds.CustomResourceDefinition, {
      fieldSelector,
      ...(this.opts.logger ? { logger: this.opts.logger } : {}),
    });
    informer.on((e) => this.judge(name, e.type === 'delete' ? undefined : e.obj));
    this.informers.push(informer);
    informer.start();
  }

  async stop(): Promise<void> {
    this.started = false;
    await Promise.all(this.informers.splice(0).map((i) => i.stop()));
  }

  private judge(name: string, live: KubeObject | undefined): void {
    const expected = this.expected.get(name);
    // A deleted CRD takes its CRs with it: nothing to report on them.
    const diff = expected && live ? crdSchemaDifference(expected, live) : undefined;
    if (diff === this.differences.get(name)) return;
    if (diff) {
      this.differences.set(name, diff);
      this.opts.logger?.warn(
        { crd: name, difference: diff },
        'installed CRD is not the schema this operator was built for',
      );
    } else {
      this.differences.delete(name);
      this.opts.logger?.info({ crd: name }, 'installed CRD is the schema this operator was built for again');
    }
    for (const fn of this.listeners) fn(name);
  }
}
