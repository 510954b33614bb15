import type { KindRef, KubeObject, ObjectRef } from '@stackops/lib-common/client';
import type { Manager, Predicate } from '@stackops/lib-common/runtime';
import { KeystoneKinds } from '../../api/group.js';
import type { KeystoneAPI } from '../../api/keystone-api.js';
import type { IdentityClientPool } from '../../identity/client-pool.js';

/** What main.ts and the tests choose for the KeystoneService and KeystoneEndpoint controllers. */
export interface DependantControllerOptions {
  /** Shared between the KeystoneService and KeystoneEndpoint controllers, so both reuse one admin token. */
  pool?: IdentityClientPool;
  concurrency?: number;
  /** How often Keystone is re-checked for drift (default: `KEYSTONE_RESYNC_PERIOD`, else 5 min). */
  resyncMs?: number;
}

export const refOf = (o: KubeObject): ObjectRef => ({
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
    before.spec.secret !== after.spec.secret ||
    before.spec.tls?.caBundleSecretName !== after.spec.tls?.caBundleSecretName
  );
};

/** Every object of `kind` in the namespace of `obj`, from the cache. */
export const everyInNamespace =
  (manager: Manager, kind: KindRef) =>
  (obj: KubeObject): ObjectRef[] =>
    manager.cache.list(kind, { namespace: obj.metadata.namespace ?? '' }).map(refOf);

/**
 * The Secrets a dependant reads through its namespace's KeystoneAPI: the admin password Secret and
 * the CA bundle (for an https KeystoneAPI), watched by name. A KeystoneAPI naming others wakes the
 * dependants (`keystoneApiChangedForDependants`), whose reconcile then watches the new names.
 */
export const keystoneApiSecretsOf =
  (manager: Manager) =>
  (dependant: KubeObject): (string | undefined)[] =>
    manager.cache
      .list<KeystoneAPI>(KeystoneKinds.KeystoneAPI, { namespace: dependant.metadata.namespace ?? '' })
      .flatMap((api) => [api.spec.secret, api.spec.tls?.caBundleSecretName]);
