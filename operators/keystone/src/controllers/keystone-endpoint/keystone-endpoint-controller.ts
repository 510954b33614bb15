import { Kinds, type KubeObject, type ObjectRef } from '@stackops/lib-common/client';
import type { Manager } from '@stackops/lib-common/runtime';
import { KeystoneKinds } from '../../api/group.js';
import type { KeystoneAPI } from '../../api/keystone-api.js';
import type { KeystoneEndpoint } from '../../api/keystone-endpoint.js';
import { IdentityClientPool } from '../../identity/client-pool.js';
import { resyncPeriodFromEnv } from '../dependants/resync.js';
import {
  type DependantControllerOptions,
  everyInNamespace,
  keystoneApiChangedForDependants,
  refOf,
} from '../dependants/watches.js';
import { keystoneEndpointReconciler } from './keystone-endpoint-reconciler.js';

/** The KeystoneEndpoints naming a KeystoneService. */
function endpointsOfService(manager: Manager) {
  return (service: KubeObject): ObjectRef[] =>
    manager.cache
      .list<KeystoneEndpoint>(KeystoneKinds.KeystoneEndpoint, { namespace: service.metadata.namespace ?? '' })
      .filter((e) => e.spec.serviceName === service.metadata.name)
      .map(refOf);
}

/** The admin password Secret of the namespace's KeystoneAPI wakes every KeystoneEndpoint there. */
function endpointsUsingAdminSecret(manager: Manager) {
  return (secret: KubeObject): ObjectRef[] => {
    const namespace = secret.metadata.namespace ?? '';
    const used = manager.cache
      .list<KeystoneAPI>(KeystoneKinds.KeystoneAPI, { namespace })
      .some((api) => api.spec.secret === secret.metadata.name);
    return used ? everyInNamespace(manager, KeystoneKinds.KeystoneEndpoint)(secret) : [];
  };
}

/**
 * Registers the KeystoneEndpoint controller (for main.ts and the tests): woken by its own objects,
 * by the KeystoneService it names, by the namespace's KeystoneAPI and by the admin Secret.
 */
export function registerKeystoneEndpointController(manager: Manager, opts: DependantControllerOptions = {}) {
  return manager
    .controller<KeystoneEndpoint>({
      for: KeystoneKinds.KeystoneEndpoint,
      name: 'keystoneendpoint',
      concurrency: opts.concurrency ?? 2,
    })
    .watches(KeystoneKinds.KeystoneService, endpointsOfService(manager))
    .watches(KeystoneKinds.KeystoneAPI, everyInNamespace(manager, KeystoneKinds.KeystoneEndpoint), {
      predicates: [keystoneApiChangedForDependants],
    })
    .watches(Kinds.Secret, endpointsUsingAdminSecret(manager))
    .reconcile(
      keystoneEndpointReconciler(
        opts.pool ?? new IdentityClientPool(),
        opts.resyncMs ?? resyncPeriodFromEnv(process.env),
      ),
    );
}
