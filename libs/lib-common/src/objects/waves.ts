/**
 * Writing a set of objects at once instead of one after another: a step that applies twenty
 * objects pays one round-trip per wave instead of twenty. Waves keep the order that matters to
 * the API server and the controllers: namespaces and CRDs first; then the roles, ServiceAccounts,
 * ConfigMaps and Secrets; then, together, the bindings (without the `bind` verb, a binding to a
 * role that does not exist yet is refused as an escalation) and the workloads and webhook
 * configurations. A workload needs its ServiceAccount to exist (admission refuses its pods
 * otherwise) and its ConfigMaps and Secrets to mount, but not its bindings: they are checked when
 * the pod's process calls the API server, long after the binding's write has landed. So the
 * bindings cost no round-trip of their own.
 */

/** Kinds written before everything else: other objects live in them or are of their kind. */
const FIRST = new Set(['Namespace', 'CustomResourceDefinition']);

/** Kinds written once the roles they name exist. */
const BINDINGS = new Set(['RoleBinding', 'ClusterRoleBinding']);

/** Kinds written last, with the bindings: they start pods, or route requests to pods. */
const LAST = new Set([
  'Deployment',
  'DaemonSet',
  'StatefulSet',
  'ReplicaSet',
  'Job',
  'CronJob',
  'Pod',
  'ValidatingWebhookConfiguration',
  'MutatingWebhookConfiguration',
  'APIService',
]);

/** The wave (0 to 2) an object of `kind` is written in. */
export function waveOf(kind: string): number {
  if (FIRST.has(kind)) return 0;
  return BINDINGS.has(kind) || LAST.has(kind) ? 2 : 1;
}

/** At most this many writes of one wave in flight: one HTTP/2 connection carries them all. */
const DEFAULT_CONCURRENCY = 16;

/** What `inWaves` reads of an item's object to tell whether another item needs it first. */
interface WaveObject {
  metadata?: { name?: string; namespace?: string };
  spec?: unknown;
}

export interface InWavesOptions<T = unknown> {
  /** Writes in flight at once within a wave (default 16: a wave of network-addons' first apply is 9). */
  concurrency?: number;
  /**
   * The item's object. With it, a Namespace or CRD gets a wave of its own only when another item
   * lives in that Namespace or is of that CRD's kind; otherwise it goes with the roles and
   * ConfigMaps (one round-trip less for a set that only ships a CRD for others to use).
   */
  objectOf?: (item: T) => WaveObject;
}

/** The CRD's kind (`spec.names.kind`), if the object says it. */
const crdKindOf = (o: WaveObject): string | undefined => {
  const names = (o.spec as { names?: { kind?: unknown } } | undefined)?.names;
  return typeof names?.kind === 'string' ? names.kind : undefined;
};

/** Per item, its wave: `waveOf` its kind, a Namespace or CRD nothing in the set needs moved to wave 1. */
function wavesOf<T>(items: readonly T[], kindOf: (item: T) => string, objectOf?: (item: T) => WaveObject) {
  const kinds = items.map(kindOf);
  if (!objectOf) return kinds.map(waveOf);
  const objects = items.map(objectOf);
  const namespacesUsed = new Set(objects.map((o) => o.metadata?.namespace).filter(Boolean));
  const kindsUsed = new Set(kinds);
  return kinds.map((kind, i) => {
    const o = objects[i] as WaveObject;
    if (kind === 'Namespace' && !namespacesUsed.has(o.metadata?.name)) return 1;
    if (kind === 'CustomResourceDefinition') {
      const defined = crdKindOf(o);
      if (defined !== undefined && !kindsUsed.has(defined)) return 1;
    }
    return waveOf(kind);
  });
}

/**
 * Runs `write` for every item, wave after wave (`waveOf(kindOf(item))`; see `objectOf` for a
 * Namespace or CRD nothing in the set needs first), the items of one wave
 * concurrently, and returns the results in the items' order. When a write fails, the rest of its
 * wave still finishes (nothing is left in flight), later waves are not started, and the first
 * failure in the items' order is thrown.
 */
export async function inWaves<T, R>(
  items: readonly T[],
  kindOf: (item: T) => string,
  write: (item: T) => Promise<R>,
  opts: InWavesOptions<T> = {},
): Promise<R[]> {
  const limit = Math.max(1, opts.concurrency ?? DEFAULT_CONCURRENCY);
  const results = new Array<R>(items.length);
  const waves: number[][] = [[], [], []];
  wavesOf(items, kindOf, opts.objectOf).forEach((wave, i) => {
    waves[wave]?.push(i);
  });
  for (const indexes of waves) {
    const failures = new Map<number, unknown>();
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < indexes.length) {
        const i = indexes[next++] as number;
        try {
          results[i] = await write(items[i] as T);
        } catch (err) {
          failures.set(i, err);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(limit, indexes.length) }, worker));
    if (failures.size) throw failures.get(Math.min(...failures.keys()));
  }
  return results;
}
