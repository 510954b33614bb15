import type { KindRef } from '../client/kinds.js';
import type { KubeObject, OwnerReference } from '../client/types.js';

/**
 * The controller owner reference to `owner` (controller and blockOwnerDeletion true, as
 * controller-runtime's SetControllerReference): garbage collection deletes the dependent with its
 * owner, and owner triggers find the owner from the dependent.
 */
export function controllerReference(owner: KubeObject): OwnerReference {
  const { apiVersion, kind } = owner;
  const { name, uid } = owner.metadata;
  if (!apiVersion || !kind || !name || !uid) {
    throw new TypeError(
      'controllerReference: the owner needs apiVersion, kind, metadata.name and metadata.uid',
    );
  }
  return { apiVersion, kind, name, uid, controller: true, blockOwnerDeletion: true };
}

/** The controller owner reference of an object, if it has one. */
export function controllerOf(obj: KubeObject): OwnerReference | undefined {
  return obj.metadata.ownerReferences?.find((r) => r.controller === true);
}

/**
 * A copy of `obj` owned by `owner`: its controller reference replaces any other controller
 * reference (an object has at most one), other references are kept, and a namespaced object
 * without a namespace goes to the owner's. Kubernetes forbids owner references across namespaces
 * and from cluster-scoped dependents to namespaced owners, so those throw.
 */
export function withControllerReference<T extends KubeObject>(owner: KubeObject, kind: KindRef, obj: T): T {
  const ref = controllerReference(owner);
  const ownerNs = owner.metadata.namespace;
  const namespace = kind.namespaced ? (obj.metadata.namespace ?? ownerNs) : undefined;
  if (kind.namespaced && ownerNs && namespace !== ownerNs) {
    throw new TypeError(
      `${kind.kind} ${namespace}/${obj.metadata.name}: cannot be owned by ${owner.kind} ${ownerNs}/${ref.name} (another namespace)`,
    );
  }
  if (!kind.namespaced && ownerNs) {
    throw new TypeError(
      `${kind.kind} ${obj.metadata.name}: a cluster-scoped object cannot be owned by a namespaced ${owner.kind}`,
    );
  }
  const others = (obj.metadata.ownerReferences ?? []).filter(
    (r) => r.uid !== ref.uid && r.controller !== true,
  );
  const metadata = { ...obj.metadata, ownerReferences: [...others, ref] };
  if (namespace) metadata.namespace = namespace;
  return { ...obj, metadata };
}
