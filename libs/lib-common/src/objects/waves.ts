/**
 * Writing a set of objects at once instead of one after another: a step that applies twenty
 * objects pays a few round-trips instead of twenty. The order that matters to the API server and
 * the controllers is kept: namespaces and CRDs first; then the roles, ServiceAccounts, ConfigMaps
 * and Secrets; then the bindings (without the `bind` verb, a binding to a role that does not exist
 * yet is refused as an escalation) and the workloads and webhook configurations. A workload needs
 * its ServiceAccount to exist (admission refuses its pods otherwise) and its ConfigMaps and
 * Secrets to mount, but not its bindings: they are checked when the pod's process calls the API
 * server, long after the binding's write has landed. Each object waits only for those it needs,
 * not for everything before it: a DaemonSet is not held by a NetworkPolicy's write.
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

/** At most this many writes in flight at once: one HTTP/2 connection carries them all. */
const DEFAULT_CONCURRENCY = 16;

/** What `inWaves` reads of an item's object to tell which other items it needs first. */
interface WaveObject {
  metadata?: { name?: string; namespace?: string };
  spec?: unknown;
  roleRef?: { kind?: string; name?: string };
}

export interface InWavesOptions<T = unknown> {
  /** Writes in flight at once (default 16: network-addons' first apply is 14). */
  concurrency?: number;
  /**
   * The item's object. With it, an item waits only for the items of earlier waves it needs (see
   * `needs`), not for the whole earlier wave; and a Namespace or CRD gets a wave of its own only
   * when another item lives in that Namespace or is of that CRD's kind (otherwise it goes with the
   * roles and ConfigMaps: one round-trip less for a set that only ships a CRD for others to use).
   */
  objectOf?: (item: T) => WaveObject;
}

/** The CRD's kind (`spec.names.kind`), if the object says it. */
const crdKindOf = (o: WaveObject): string | undefined => {
  const names = (o.spec as { names?: { kind?: unknown } } | undefined)?.names;
  return typeof names?.kind === 'string' ? names.kind : undefined;
};

/** Per item, its wave: `waveOf` its kind, a Namespace or CRD nothing in the set needs moved to wave 1. */
function wavesOf(kinds: readonly string[], objects?: readonly WaveObject[]) {
  if (!objects) return kinds.map(waveOf);
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

/** Kinds whose objects make pods (the pod's ServiceAccount is checked when a pod is created). */
const POD_MAKERS = new Set(['Deployment', 'DaemonSet', 'StatefulSet', 'ReplicaSet', 'Job', 'CronJob', 'Pod']);

/** What a pod runs as or mounts from its own namespace: it cannot be admitted or start without them. */
const POD_INPUTS = new Set(['ServiceAccount', 'ConfigMap', 'Secret', 'PersistentVolumeClaim']);

/**
 * Whether `later` (of a later wave) must wait for `earlier`'s write: it lives in that Namespace or
 * is of that CRD's kind; a binding waits for the role it names; a workload for the ServiceAccounts,
 * ConfigMaps, Secrets and claims of its namespace (not for roles, Services or NetworkPolicies,
 * which no pod needs to be created and started); a webhook configuration or APIService for the
 * whole earlier wave (the Services it routes to).
 */
function needs(later: WaveObject, laterKind: string, earlier: WaveObject, earlierKind: string): boolean {
  const ns = later.metadata?.namespace;
  if (earlierKind === 'Namespace') return ns !== undefined && ns === earlier.metadata?.name;
  if (earlierKind === 'CustomResourceDefinition') return crdKindOf(earlier) === laterKind;
  if (BINDINGS.has(laterKind)) {
    const ref = later.roleRef;
    return (
      ref?.kind === earlierKind &&
      ref.name === earlier.metadata?.name &&
      (earlierKind === 'ClusterRole' || earlier.metadata?.namespace === ns)
    );
  }
  if (POD_MAKERS.has(laterKind)) return POD_INPUTS.has(earlierKind) && earlier.metadata?.namespace === ns;
  return true;
}

/**
 * Per item, the indexes of the items it waits for: with the objects, those `needs` says; without,
 * every item of every earlier wave.
 */
function dependencies(waves: readonly number[], kinds: readonly string[], objects?: readonly WaveObject[]) {
  return waves.map((wave, j) =>
    waves.flatMap((w, i) =>
      w < wave &&
      (!objects || needs(objects[j] as WaveObject, kinds[j] ?? '', objects[i] as WaveObject, kinds[i] ?? ''))
        ? [i]
        : [],
    ),
  );
}

/**
 * Runs `write` for every item, each as soon as the items of earlier waves it needs are written
 * (`waveOf(kindOf(item))`; with `objectOf`, only those `needs` names, else whole waves one after
 * another), at most `concurrency` at once, earlier waves first, and returns the results in the
 * items' order. When a write fails, the writes in flight still finish (nothing is left in flight),
 * no other write starts, and the first failure in the items' order is thrown.
 */
export async function inWaves<T, R>(
  items: readonly T[],
  kindOf: (item: T) => string,
  write: (item: T) => Promise<R>,
  opts: InWavesOptions<T> = {},
): Promise<R[]> {
  const limit = Math.max(1, opts.concurrency ?? DEFAULT_CONCURRENCY);
  const results = new Array<R>(items.length);
  const kinds = items.map(kindOf);
  const objects = opts.objectOf ? items.map(opts.objectOf) : undefined;
  const waves = wavesOf(kinds, objects);
  const waitsFor = dependencies(waves, kinds, objects);
  // Earlier waves first, then the items' order: the order writes start in when nothing waits.
  const order = items.map((_, i) => i).sort((a, b) => (waves[a] ?? 0) - (waves[b] ?? 0) || a - b);
  const done = new Set<number>();
  const started = new Set<number>();
  const failures = new Map<number, unknown>();
  let inFlight = 0;
  await new Promise<void>((resolve) => {
    const startReady = (): void => {
      for (const i of order) {
        if (failures.size || inFlight >= limit) break;
        if (started.has(i) || !(waitsFor[i] ?? []).every((d) => done.has(d))) continue;
        started.add(i);
        inFlight += 1;
        // A write that throws before returning its promise fails like one that rejects.
        (async () => write(items[i] as T))()
          .then(
            (r) => {
              results[i] = r;
              done.add(i);
            },
            (err: unknown) => {
              failures.set(i, err);
            },
          )
          .finally(() => {
            inFlight -= 1;
            startReady();
          });
      }
      if (inFlight === 0) resolve();
    };
    startReady();
  });
  if (failures.size) throw failures.get(Math.min(...failures.keys()));
  return results;
}
