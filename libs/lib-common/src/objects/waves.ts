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
const DEFAULT_CONCURRENCY = 8;

export interface InWavesOptions {
  /** Writes in flight at once within a wave (default 8). */
  concurrency?: number;
}

/**
 * Runs `write` for every item, wave after wave (`waveOf(kindOf(item))`), the items of one wave
 * concurrently, and returns the results in the items' order. When a write fails, the rest of its
 * wave still finishes (nothing is left in flight), later waves are not started, and the first
 * failure in the items' order is thrown.
 */
export async function inWaves<T, R>(
  items: readonly T[],
  kindOf: (item: T) => string,
  write: (item: T) => Promise<R>,
  opts: InWavesOptions = {},
): Promise<R[]> {
  const limit = Math.max(1, opts.concurrency ?? DEFAULT_CONCURRENCY);
  const results = new Array<R>(items.length);
  const waves: number[][] = [[], [], []];
  items.forEach((item, i) => {
    waves[waveOf(kindOf(item))]?.push(i);
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
