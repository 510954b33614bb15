import type { Registry } from './prom-client.js';
import { gauge } from './registry.js';

/** What the ready gauge reads of an object: its name and its status conditions. */
interface ObjectWithConditions {
  metadata: { name?: string; namespace?: string };
  status?: unknown;
}

/** The series name; the charts' PrometheusRules alert on it (CRs not Ready for too long). */
const RESOURCE_READY_METRIC = 'stackops_resource_ready';

type Lister = () => readonly ObjectWithConditions[];

const listersByRegistry = new WeakMap<Registry, Map<string, Lister>>();

/**
 * 1 when the condition says True, else 0 (False, Unknown, or not written yet). `Ready` when the
 * object has one; kinds whose status has no Ready (NetworkAddonsConfig) are judged by `Available`.
 */
export function readyValue(obj: ObjectWithConditions): number {
  const conditions = (obj.status as { conditions?: { type?: string; status?: string }[] } | undefined)
    ?.conditions;
  if (!Array.isArray(conditions)) return 0;
  const ready = conditions.find((c) => c.type === 'Ready') ?? conditions.find((c) => c.type === 'Available');
  return ready?.status === 'True' ? 1 : 0;
}

/**
 * `stackops_resource_ready{controller,resource_namespace,resource_name}` (not `namespace`: Prometheus gives
 * that label the scrape target's namespace) for every primary object a controller has
 * in its cache, computed when scraped (no bookkeeping on the reconcile path, and a deleted object
 * drops out by itself). Only the leader runs controllers, so a standby exports none.
 */
export function trackResourceReady(controller: string, list: Lister, registry: Registry): void {
  let listers = listersByRegistry.get(registry);
  if (!listers) {
    const own = new Map<string, Lister>();
    listers = own;
    listersByRegistry.set(registry, own);
    gauge(
      {
        name: RESOURCE_READY_METRIC,
        help: 'Whether a custom resource is Ready (1) or not (0), per controller, namespace and name',
        labelNames: ['controller', 'resource_namespace', 'resource_name'] as const,
        collect() {
          this.reset();
          for (const [name, lister] of own) {
            let objects: readonly ObjectWithConditions[];
            try {
              objects = lister();
            } catch {
              continue; // the kind's informer has not started (or stopped): nothing to say yet
            }
            for (const obj of objects)
              this.set(
                {
                  controller: name,
                  resource_namespace: obj.metadata.namespace ?? '',
                  resource_name: obj.metadata.name ?? '',
                },
                readyValue(obj),
              );
          }
        },
      },
      registry,
    );
  }
  listers.set(controller, list);
}
