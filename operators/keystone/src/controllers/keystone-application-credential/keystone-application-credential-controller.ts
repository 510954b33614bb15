import { Kinds } from '@stackops/lib-common/client';
import type { Manager } from '@stackops/lib-common/runtime';
import { KeystoneKinds } from '../../api/group.js';
import type { KeystoneAPI } from '../../api/keystone-api.js';
import {
  type KeystoneApplicationCredential,
  KeystoneApplicationCredentialKind,
} from '../../api/keystone-application-credential.js';
import { IdentityClientPool } from '../../identity/client-pool.js';
import { everyInNamespace, keystoneApiChangedForDependants } from '../dependants/watches.js';
import { keystoneApplicationCredentialReconciler } from './keystone-application-credential-reconciler.js';

/**
 * Registers the KeystoneApplicationCredential controller: woken by its own objects, by the
 * namespace's KeystoneAPI, and — watched by name, never the whole kind — by the password Secret,
 * the KeystoneAPI's CA bundle and its own current and previous credential Secrets.
 */
export function registerKeystoneApplicationCredentialController(
  manager: Manager,
  opts: { pool?: IdentityClientPool; concurrency?: number } = {},
) {
  const caBundleOf = (namespace: string) =>
    manager.cache.list<KeystoneAPI>(KeystoneKinds.KeystoneAPI, { namespace })[0]?.spec.tls
      ?.caBundleSecretName;
  return manager
    .controller<KeystoneApplicationCredential>({
      for: KeystoneApplicationCredentialKind,
      name: 'keystoneapplicationcredential',
      concurrency: opts.concurrency ?? 2,
    })
    .watches(KeystoneKinds.KeystoneAPI, everyInNamespace(manager, KeystoneApplicationCredentialKind), {
      predicates: [keystoneApiChangedForDependants],
    })
    .watchesNamed(Kinds.Secret, (cr) => [
      cr.spec.secret,
      caBundleOf(cr.metadata.namespace ?? ''),
      cr.status?.secretName,
      cr.status?.previousSecretName,
    ])
    .reconcile(keystoneApplicationCredentialReconciler(opts.pool ?? new IdentityClientPool()));
}
