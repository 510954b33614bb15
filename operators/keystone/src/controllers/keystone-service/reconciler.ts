import { Reason, unknownCondition } from '@stackops/lib-common/conditions';
import { ensureFinalizer, removeFinalizer } from '@stackops/lib-common/runtime';
import { KeystoneConditionTypes, KeystoneMessages } from '../../api/conditions.js';
import { KeystoneFinalizers, serviceFinalizerOnApi } from '../../api/finalizers.js';
import { KeystoneKinds } from '../../api/group.js';
import type { KeystoneService, KeystoneServiceStatus } from '../../api/keystone-service.js';
import {
  deleteServiceRegistration,
  deleteUserNamed,
  ensureCatalogService,
  ensureServiceUser,
} from '../../registration/service.js';
import { markFailed, markWaiting, readSecretKeyFromCache } from '../dependants/conditions.js';
import {
  type DependantDefinition,
  type DependantOutcome,
  type DependantPass,
  DependantReconciler,
  type DependantReconcilerOptions,
  ignoreNotFound,
} from '../dependants/reconcile.js';

/** Upstream waits 10 s for the service user's password Secret. */
export const PASSWORD_SECRET_RECHECK_MS = 10_000;

const T = KeystoneConditionTypes;
const M = KeystoneMessages;

type Pass = DependantPass<KeystoneService, KeystoneServiceStatus>;

async function registerService(pass: Pass): Promise<void> {
  const spec = pass.cr.spec;
  try {
    const service = await ensureCatalogService(
      pass.identity!,
      {
        type: spec.serviceType,
        name: spec.serviceName,
        description: spec.serviceDescription,
        enabled: spec.enabled,
      },
      pass.status.serviceID || undefined,
      pass.changes,
    );
    pass.status.serviceID = service.id;
    pass.conditions.markTrue(
      T.KeystoneServiceOSServiceReady,
      M.KeystoneServiceOSServiceReady,
      spec.serviceName,
      service.id,
    );
  } catch (err) {
    markFailed(pass.conditions, T.KeystoneServiceOSServiceReady, M.KeystoneServiceOSServiceReadyError, err);
    throw err;
  }
}

async function registerUser(
  pass: Pass,
  cache: DependantReconcilerOptions['cache'],
): Promise<DependantOutcome> {
  const spec = pass.cr.spec;
  const type = T.KeystoneServiceOSUserReady;
  const password = readSecretKeyFromCache(
    cache,
    pass.cr.metadata.namespace ?? '',
    spec.secret,
    spec.passwordSelector,
  );
  if (password.state === 'no-secret') {
    markWaiting(pass.conditions, type, M.KeystoneServiceOSUserReadyWaiting);
    return { requeueAfterMs: PASSWORD_SECRET_RECHECK_MS };
  }
  if (password.state === 'no-key') {
    // The Secret is watched: its next change brings the next pass; no hot retry.
    markFailed(pass.conditions, type, M.KeystoneServiceOSUserReadyError, password.detail);
    return {};
  }
  try {
    await ensureServiceUser(
      pass.identity!,
      { username: spec.serviceUser, password: password.value },
      pass.changes,
    );
  } catch (err) {
    markFailed(pass.conditions, type, M.KeystoneServiceOSUserReadyError, err);
    throw err;
  }
  pass.conditions.markTrue(type, M.KeystoneServiceOSUserReady, spec.serviceUser);
  return {};
}

/** The Keystone user this KeystoneService registered, so a renamed `serviceUser` can retire the old one. */
export const SERVICE_USER_ANNOTATION = 'keystone.openstack.org/service-user';

/**
 * After the user of `spec.serviceUser` is in place: deletes the user registered under a previous
 * name, and records the current name (one metadata write, only when it changed).
 */
async function recordServiceUser(pass: Pass, opts: DependantReconcilerOptions): Promise<void> {
  const current = pass.cr.spec.serviceUser;
  const recorded = pass.cr.metadata.annotations?.[SERVICE_USER_ANNOTATION];
  if (recorded === current) return;
  if (recorded) await deleteUserNamed(pass.identity!, recorded, pass.changes);
  const ref = { namespace: pass.cr.metadata.namespace ?? '', name: pass.cr.metadata.name ?? '' };
  const patch = { metadata: { annotations: { [SERVICE_USER_ANNOTATION]: current } } };
  pass.cr = await opts.client.patch<KeystoneService>(KeystoneKinds.KeystoneService, ref, patch, 'merge');
}

/**
 * KeystoneService: registers the catalog service, and its user in project `service`
 * with roles admin and service; on deletion removes both, then releases
 * `openstack.org/keystoneservice-<name>` on the KeystoneAPI and its own finalizer.
 */
export function keystoneServiceDefinition(
  opts: DependantReconcilerOptions,
): DependantDefinition<KeystoneService, KeystoneServiceStatus> {
  const apiFinalizer = (pass: Pass) => serviceFinalizerOnApi(pass.cr.metadata.name ?? '');
  return {
    kind: KeystoneKinds.KeystoneService,
    finalizer: KeystoneFinalizers.KeystoneService,
    conditions: [
      unknownCondition(T.KeystoneAPIReady, Reason.Init, M.KeystoneAPIReadyInit),
      unknownCondition(T.AdminServiceClientReady, Reason.Init, M.AdminServiceClientReadyInit),
      unknownCondition(T.KeystoneServiceOSServiceReady, Reason.Init, M.KeystoneServiceOSServiceReadyInit),
      unknownCondition(T.KeystoneServiceOSUserReady, Reason.Init, M.KeystoneServiceOSUserReadyInit),
    ],
    initialStatus: (cr) => ({ ...cr.status, observedGeneration: cr.metadata.generation ?? 0 }),
    registered: (status) => Boolean(status.serviceID),
    async register(pass, api) {
      // Only here, with keystone ready: a KeystoneService being deleted (whose pass never gets here)
      // must not put it back on the KeystoneAPI after releasing it.
      await ensureFinalizer(opts.client, KeystoneKinds.KeystoneAPI, api, apiFinalizer(pass));
      await registerService(pass);
      const outcome = await registerUser(pass, opts.cache);
      if (pass.conditions.isTrue(T.KeystoneServiceOSUserReady)) await recordServiceUser(pass, opts);
      return outcome;
    },
    async unregister(pass) {
      const recorded = pass.cr.metadata.annotations?.[SERVICE_USER_ANNOTATION];
      await deleteServiceRegistration(
        pass.identity!,
        {
          serviceId: pass.status.serviceID ?? '',
          usernames: [pass.cr.spec.serviceUser, ...(recorded ? [recorded] : [])],
        },
        pass.changes,
      );
      pass.status.serviceID = '';
    },
    async releaseParents(pass, api) {
      if (!api) return;
      await removeFinalizer(opts.client, KeystoneKinds.KeystoneAPI, api, apiFinalizer(pass)).catch(
        ignoreNotFound,
      );
    },
  };
}

export class KeystoneServiceReconciler extends DependantReconciler<KeystoneService, KeystoneServiceStatus> {
  constructor(opts: DependantReconcilerOptions) {
    super(keystoneServiceDefinition(opts), opts);
  }
}
