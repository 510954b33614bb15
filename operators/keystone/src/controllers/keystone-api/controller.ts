import { type KindRef, Kinds, type KubeObject } from '@stackops/lib-common/client';
import type { Manager } from '@stackops/lib-common/runtime';
import { KeystoneKinds } from '../../api/group.js';
import type { KeystoneAPI } from '../../api/keystone-api.js';
import type { KeystoneDefaults } from '../../config/defaults.js';
import { KeystoneApiReconciler } from './reconciler.js';

/** What a KeystoneAPI creates and therefore watches as their controller owner. */
export const KEYSTONE_API_OWNED_KINDS: readonly KindRef[] = [
  Kinds.Secret,
  Kinds.ConfigMap,
  Kinds.Service,
  Kinds.Job,
  Kinds.CronJob,
  Kinds.Deployment,
  Kinds.ServiceAccount,
  Kinds.Role,
  Kinds.RoleBinding,
];

/** KeystoneAPIs of the object's namespace that name it through `pick`. */
function referencing(manager: Manager, pick: (cr: KeystoneAPI) => (string | undefined)[]) {
  return (obj: KubeObject) =>
    manager.cache
      .list<KeystoneAPI>(KeystoneKinds.KeystoneAPI, { namespace: obj.metadata.namespace ?? '' })
      .filter((cr) => pick(cr).includes(obj.metadata.name))
      .map((cr) => ({ namespace: cr.metadata.namespace ?? '', name: cr.metadata.name ?? '' }));
}

/**
 * Registers the KeystoneAPI controller: it owns what it creates, and is woken by its input Secret
 * and by the database and memcached Services it points at.
 */
export function registerKeystoneApiController(manager: Manager, defaults: KeystoneDefaults, concurrency = 2) {
  const reconciler = new KeystoneApiReconciler({ client: manager.client, cache: manager.cache, defaults });
  let builder = manager.controller<KeystoneAPI>({
    for: KeystoneKinds.KeystoneAPI,
    name: 'keystoneapi',
    concurrency,
  });
  for (const kind of KEYSTONE_API_OWNED_KINDS) builder = builder.owns(kind);
  return builder
    .watches(
      Kinds.Secret,
      referencing(manager, (cr) => [cr.spec.secret]),
    )
    .watches(
      Kinds.Service,
      referencing(manager, (cr) => [cr.spec.databaseInstance ?? 'openstack', cr.spec.memcachedInstance]),
    )
    .reconcile(async (obj, ctx) => {
      const out = await reconciler.reconcile(ctx.ref, {
        event: (type, reason, message) => void ctx.recorder.event(obj, type, reason, message),
        log: ctx.log,
      });
      return out.requeueAfterMs !== undefined ? { requeueAfter: out.requeueAfterMs } : {};
    });
}
