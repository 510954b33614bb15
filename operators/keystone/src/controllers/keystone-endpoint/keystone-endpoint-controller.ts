import { Kinds, type KubeObject, type ObjectRef } from '@stackops/lib-common/client';
import type { Manager } from '@stackops/lib-common/runtime';
import { KeystoneKinds } from '../../api/group.js';
import type { KeystoneEndpoint } from '../../api/keystone-endpoint.js';
import { IdentityClientPool } from '../../identity/client-pool.js';
import { resyncPeriodFromEnv } from '../dependants/resync.js';
import {
  type DependantControllerOptions,
  everyInNamespace,
  keystoneApiChangedForDependants,
  keystoneApiSecretsOf,
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

/**
 * Registers the KeystoneEndpoint controller (for main.ts and the tests): woken by its own objects,
 * by the KeystoneService it names, by the namespace's KeystoneAPI and by the Secrets it reads.
 */
export function registerKeystoneEndpointController(manager: Manager, opts: DependantControllerOptions = {}) {
  return (
    manager
      .controller<KeystoneEndpoint>({
        for: KeystoneKinds.KeystoneEndpoint,
        name: 'keystoneendpoint',
        concurrency: opts.concurrency ?? 2,
      })
      .watches(KeystoneKinds.KeystoneService, endpointsOfService(manager))
      .watches(KeystoneKinds.KeystoneAPI, everyInNamespace(manager, KeystoneKinds.KeystoneEndpoint), {
        predicates: [keystoneApiChangedForDependants],
      })
      // The KeystoneAPI's admin Secret and CA bundle, by name.
      .watchesNamed(Kinds.Secret, keystoneApiSecretsOf(manager))
      .reconcile(
        keystoneEndpointReconciler(
          opts.pool ?? new IdentityClientPool(),
          opts.resyncMs ?? resyncPeriodFromEnv(process.env),
        ),
      )
  );
}
