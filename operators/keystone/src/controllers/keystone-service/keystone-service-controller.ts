import { Kinds, type KubeObject, type ObjectRef } from '@stackops/lib-common/client';
import type { Manager } from '@stackops/lib-common/runtime';
import { KeystoneKinds } from '../../api/group.js';
import type { KeystoneAPI } from '../../api/keystone-api.js';
import type { KeystoneService } from '../../api/keystone-service.js';
import { IdentityClientPool } from '../../identity/client-pool.js';
import { resyncPeriodFromEnv } from '../dependants/resync.js';
import {
  type DependantControllerOptions,
  everyInNamespace,
  keystoneApiChangedForDependants,
  refOf,
} from '../dependants/watches.js';
import { keystoneServiceReconciler } from './keystone-service-reconciler.js';

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
    .reconcile(
      keystoneServiceReconciler(
        opts.pool ?? new IdentityClientPool(),
        opts.resyncMs ?? resyncPeriodFromEnv(process.env),
      ),
    );
}
