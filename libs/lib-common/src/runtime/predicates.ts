import { deepEqual } from '../client/json.js';
import type { KubeObject } from '../client/types.js';
import type { InformerEvent } from './informer.js';
import { labelMatcher } from './selector.js';

/** Decides whether an informer event should enqueue a reconcile. */
export type Predicate<T extends KubeObject = KubeObject> = (e: InformerEvent<T>) => boolean;

function sameRecord(a: Record<string, string> | undefined, b: Record<string, string> | undefined): boolean {
  const ka = Object.keys(a ?? {});
  const kb = Object.keys(b ?? {});
  return ka.length === kb.length && ka.every((k) => a?.[k] === b?.[k]);
}

const onUpdate =
  (changed: (old: KubeObject, obj: KubeObject) => boolean): Predicate =>
  (e) =>
    e.type !== 'update' || changed(e.old, e.obj);

/**
 * Passes adds, deletes, and updates that changed `metadata.generation` (i.e. the spec) or started
 * the deletion. Status-only writes are filtered out: a wiped status is then not noticed until the
 * next spec change or requeue.
 */
export const generationChanged: Predicate = onUpdate(
  (old, obj) =>
    old.metadata.generation !== obj.metadata.generation ||
    old.metadata.deletionTimestamp !== obj.metadata.deletionTimestamp,
);

/** The object without what any write changes (resourceVersion, managedFields) and without its status. */
function withoutStatus(o: KubeObject): unknown {
  const { status: _s, metadata, ...rest } = o as KubeObject & { status?: unknown };
  const {
    resourceVersion: _rv,
    managedFields: _mf,
    ...meta
  } = metadata as KubeObject['metadata'] & {
    managedFields?: unknown;
  };
  return { ...rest, metadata: meta };
}

/**
 * Passes adds, deletes, and updates that changed anything but the status: the spec (generation),
 * labels, annotations, finalizers, owner references, the deletion. For a primary kind whose
 * reconciler writes its own status: that write does not wake the same key once more. A status
 * someone else edited is put right by the next pass that runs for another reason (a spec or
 * metadata change, an owned object's event, a requeue, a restart).
 */
export const specOrMetadataChanged: Predicate = onUpdate(
  (old, obj) => !deepEqual(withoutStatus(old), withoutStatus(obj)),
);

/**
 * Passes adds, deletes, changes of anything but the status, and status changes of the given
 * top-level `status` fields only: for owned objects whose status the owner reads only in part.
 */
export function statusFieldsChanged(...fields: readonly string[]): Predicate {
  const picked = (o: KubeObject): unknown[] => {
    const status = (o as { status?: Record<string, unknown> }).status;
    return fields.map((f) => status?.[f]);
  };
  return onUpdate(
    (old, obj) => !deepEqual(withoutStatus(old), withoutStatus(obj)) || !deepEqual(picked(old), picked(obj)),
  );
}

/**
 * For Jobs an owner waits on: what decides the outcome (`succeeded`, `failed`, `conditions`). The Job
 * controller's other status writes (a pod started: `active`, `ready`, `startTime`; a pod counted:
 * `uncountedTerminatedPods`) would each wake the owner for a pass that finds the Job still running.
 */
export const jobOutcomeChanged: Predicate = statusFieldsChanged('succeeded', 'failed', 'conditions');

/**
 * For Deployments an owner reports on: what readiness and `readyCount` are computed from
 * (`observedGeneration`, `replicas`, `updatedReplicas`, `readyReplicas`), not `availableReplicas`
 * or the conditions, which a rollout also writes.
 */
export const deploymentReadinessChanged: Predicate = statusFieldsChanged(
  'observedGeneration',
  'replicas',
  'updatedReplicas',
  'readyReplicas',
);

export const resourceVersionChanged: Predicate = onUpdate(
  (old, obj) => old.metadata.resourceVersion !== obj.metadata.resourceVersion,
);

export const labelsChanged: Predicate = onUpdate(
  (old, obj) => !sameRecord(old.metadata.labels, obj.metadata.labels),
);

export const annotationsChanged: Predicate = onUpdate(
  (old, obj) => !sameRecord(old.metadata.annotations, obj.metadata.annotations),
);

/** Only objects whose labels match the selector (on update: either version). */
export function labelSelected(selector: string | Record<string, string>): Predicate {
  const match = labelMatcher(selector);
  return (e) => match(e.obj.metadata.labels) || (e.type === 'update' && match(e.old.metadata.labels));
}

export const and =
  <T extends KubeObject>(...ps: Predicate<T>[]): Predicate<T> =>
  (e) =>
    ps.every((p) => p(e));

export const or =
  <T extends KubeObject>(...ps: Predicate<T>[]): Predicate<T> =>
  (e) =>
    ps.some((p) => p(e));

export const not =
  <T extends KubeObject>(p: Predicate<T>): Predicate<T> =>
  (e) =>
    !p(e);
