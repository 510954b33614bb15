import { Kinds, type KubeObject, type ObjectRef } from '@stackops/lib-common/resources';
import type { Manager, Predicate } from '@stackops/lib-common/runtime';
import { KeystoneKinds } from '../api/group.js';
import type { KeystoneAPI } from '../api/keystone-api.js';
import type { KeystoneService } from '../api/keystone-service.js';
import { IdentityClientPool } from '../identity/client-pool.js';
import { runtimeReconcile } from '../identity/dependant-reconcile.js';
import { KeystoneServiceReconciler } from './keystone-service-reconciler.js';

export interface DependantControllerOptions {
  /** Shared between the KeystoneService and KeystoneEndpoint controllers, so both reuse one admin token. */
  pool?: IdentityClientPool;
  concurrency?: number;
}

const refOf = (o: KubeObject): ObjectRef => ({
  namespace: o.metadata.namespace ?? '',
  name: o.metadata.name ?? '',
});

const readyOf = (api: KubeObject) =>
  (api as KeystoneAPI).status?.conditions?.find((c) => c.type === 'Ready')?.status ?? '';

/**
 * What a dependant of the KeystoneAPI cares about (upstream `KeystoneAPIStatusChangedPredicate`
 * plus readiness and deletion): not every status write of a KeystoneAPI that is still converging.
 */
export const keystoneApiChangedForDependants: Predicate = (e) => {
  if (e.type !== 'update') return true;
  const before = e.old as KeystoneAPI;
  const after = e.obj as KeystoneAPI;
  return (
    readyOf(before) !== readyOf(after) ||
    before.metadata.deletionTimestamp !== after.metadata.deletionTimestamp ||
    JSON.stringify(before.status?.apiEndpoints ?? {}) !== JSON.stringify(after.status?.apiEndpoints ?? {}) ||
    before.spec.region !== after.spec.region ||
    before.spec.secret !== after.spec.secret
  );
};

/** Every object of `kind` in the namespace of `obj`, from the cache. */
export const everyInNamespace =
  (manager: Manager, kind: typeof KeystoneKinds.KeystoneService) =>
  (obj: KubeObject): ObjectRef[] =>
    manager.cache.list(kind, { namespace: obj.metadata.namespace ?? '' }).map(refOf);

/** Secrets matter when they hold a service password, or the admin password of the namespace's KeystoneAPI. */
function servicesUsingSecret(manager: Manager) {
  return (secret: KubeObject): ObjectRef[] => {
    const namespace = secret.metadata.namespace ?? '';
    const services = manager.cache.list<KeystoneService>(KeystoneKinds.KeystoneService, { namespace });
    const adminSecret = manager.cache
      .list<KeystoneAPI>(KeystoneKinds.KeystoneAPI, { namespace })
      .some((api) => api.spec.secret === secret.metadata.name);
    return services.filter((s) => adminSecret || s.spec.secret === secret.metadata.name).map(refOf);
  };
}

/**
 * Registers the KeystoneService controller (for main.ts and the tests): woken by its own objects,
 * by the namespace's KeystoneAPI (readiness, endpoints, deletion) and by the Secrets it reads.
 */
export function registerKeystoneServiceController(manager: Manager, opts: DependantControllerOptions = {}) {
  const reconciler = new KeystoneServiceReconciler({
    client: manager.client,
    cache: manager.cache,
    pool: opts.pool ?? new IdentityClientPool(),
  });
  return manager
    .controller<KeystoneService>({
      for: KeystoneKinds.KeystoneService,
      name: 'keystoneservice',
      concurrency: opts.concurrency ?? 2,
    })
    .watches(KeystoneKinds.KeystoneAPI, everyInNamespace(manager, KeystoneKinds.KeystoneService), {
      predicates: [keystoneApiChangedForDependants],
    })
    .watches(Kinds.Secret, servicesUsingSecret(manager))
    .reconcile(runtimeReconcile((obj, events) => reconciler.reconcile(obj, events)));
}
