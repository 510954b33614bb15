import type { KindRef, KubeObject } from '@stackops/lib-common/client';
import { type ConditionInput, Reason, unknownCondition } from '@stackops/lib-common/conditions';
import { pipeline, reports, type Step } from '@stackops/lib-common/pipeline';
import type { Reconciler } from '@stackops/lib-common/runtime';
import { KeystoneConditionTypes, KeystoneMessages } from '../../api/conditions.js';
import { isBeingDeleted } from '../../api/helpers.js';
import type { IdentityClientPool } from '../../identity/client-pool.js';
import type { DependantPass } from './context.js';
import { findKeystoneAPI } from './keystone-api-access.js';
import { DEFAULT_RESYNC_MS } from './resync.js';
import { checkKeystoneAPI } from './steps/check-keystone-api.js';
import { connectAdminClient } from './steps/connect-admin-client.js';

// A failure lands on the condition the step turned False itself (with its words), else the one it
// declares, else Ready: lib-common's pipeline default, as for every kind.
const keystoneApiReady = reports(KeystoneConditionTypes.KeystoneAPIReady, checkKeystoneAPI);
const adminClientReady = reports(KeystoneConditionTypes.AdminServiceClientReady, connectAdminClient);

/** What differs between the two kinds that register things in Keystone for a KeystoneAPI. */
export interface DependantDefinition<T extends KubeObject, S extends object, P extends DependantPass<T, S>> {
  kind: KindRef;
  /** The object's own finalizer (`openstack.org/keystoneservice` / `…keystoneendpoint`). */
  finalizer: string;
  /** The kind's own conditions, initialised (Unknown) at the start of every pass after the shared two. */
  conditions: readonly ConditionInput[];
  initialStatus(cr: T, previous: S | undefined): S;
  /** Whether anything of this object is registered in Keystone (deletion needs no Keystone otherwise). */
  registered(status: S): boolean;
  /**
   * The steps of a live object, once Keystone is Ready and an admin client is at hand, each with the
   * condition it reports (`reports`).
   */
  register: readonly Step<P>[];
  /** On deletion, with Keystone Ready and an admin client: remove what was registered. */
  unregister: readonly Step<P>[];
  /** Last on deletion: drop the finalizers this object holds on its parents (KeystoneAPI, KeystoneService). */
  releaseParents: Step<P>;
}

/**
 * The reconciler of a KeystoneService or KeystoneEndpoint on lib-common's pipeline: its own
 * finalizer, then the namespace's KeystoneAPI Ready, an admin client, and the kind's steps. On
 * deletion Keystone is only called when something was registered and the KeystoneAPI is not going
 * away itself (it may be half torn down, and waiting for it would hang a namespace deletion; unlike
 * upstream, a KeystoneAPI already gone releases the finalizers too); the parents' finalizers are
 * released last.
 */
export function dependantReconciler<T extends KubeObject, S extends object, P extends DependantPass<T, S>>(
  def: DependantDefinition<T, S, P>,
  pool: IdentityClientPool,
  resyncMs: number = DEFAULT_RESYNC_MS,
): Reconciler<T> {
  // Keystone is the truth of what is registered and nothing watches it: every live pass comes back
  // after the resync period to repair drift (a deleted user, a password or URL changed by hand).
  const scheduleResync = (ctx: P) => void ctx.requeueAfter(resyncMs);
  const keystoneNeeded = (ctx: P): boolean => {
    const api = findKeystoneAPI(ctx.cache, ctx.cr.metadata.namespace ?? '');
    return api !== undefined && !isBeingDeleted(api) && def.registered(ctx.status);
  };
  return pipeline<T, S, P>({
    kind: def.kind,
    conditions: [
      unknownCondition(
        KeystoneConditionTypes.KeystoneAPIReady,
        Reason.Init,
        KeystoneMessages.KeystoneAPIReadyInit,
      ),
      unknownCondition(
        KeystoneConditionTypes.AdminServiceClientReady,
        Reason.Init,
        KeystoneMessages.AdminServiceClientReadyInit,
      ),
      ...def.conditions,
    ],
    initialStatus: def.initialStatus,
    context: (pass) =>
      Object.assign(pass, {
        pool,
        changes: {
          push: (change: string) => {
            pass.log.info({ keystone: change }, change);
            pass.event('Normal', 'KeystoneUpdated', change);
          },
        },
      }) as P,
    steps: [scheduleResync, keystoneApiReady, adminClientReady, ...def.register],
    finalizer: {
      name: def.finalizer,
      cleanup: (ctx) =>
        keystoneNeeded(ctx)
          ? [keystoneApiReady, adminClientReady, ...def.unregister, def.releaseParents]
          : [def.releaseParents],
    },
  });
}
