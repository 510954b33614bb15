import { Kinds } from '@stackops/lib-common/client';
import type { Manager } from '@stackops/lib-common/runtime';
import { KeystoneKinds } from '../../api/group.js';
import type { KeystoneService } from '../../api/keystone-service.js';
import { IdentityClientPool } from '../../identity/client-pool.js';
import { resyncPeriodFromEnv } from '../dependants/resync.js';
import {
  type DependantControllerOptions,
  everyInNamespace,
  keystoneApiChangedForDependants,
  keystoneApiSecretsOf,
} from '../dependants/watches.js';
import { keystoneServiceReconciler } from './keystone-service-reconciler.js';

/**
 * Registers the KeystoneService controller (for main.ts and the tests): woken by its own objects,
 * by the namespace's KeystoneAPI (readiness, endpoints, deletion) and by the Secrets it reads.
 */
export function registerKeystoneServiceController(manager: Manager, opts: DependantControllerOptions = {}) {
  const keystoneApiSecrets = keystoneApiSecretsOf(manager);
  return (
    manager
      .controller<KeystoneService>({
        for: KeystoneKinds.KeystoneService,
        name: 'keystoneservice',
        concurrency: opts.concurrency ?? 2,
      })
      .watches(KeystoneKinds.KeystoneAPI, everyInNamespace(manager, KeystoneKinds.KeystoneService), {
        predicates: [keystoneApiChangedForDependants],
      })
      // The Secrets it reads, by name: its password Secret, the KeystoneAPI's admin Secret and CA bundle.
      .watchesNamed(Kinds.Secret, (s) => [s.spec.secret, ...keystoneApiSecrets(s)])
      .reconcile(
        keystoneServiceReconciler(
          opts.pool ?? new IdentityClientPool(),
          opts.resyncMs ?? resyncPeriodFromEnv(process.env),
        ),
      )
  );
}
