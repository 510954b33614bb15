import { isNotFound, type KindRef, type KubeClient, type KubeObject } from '@stackops/lib-common/client';
import { type Condition, type ConditionInput, Conditions } from '@stackops/lib-common/conditions';
import { patchStatusIfChanged } from '@stackops/lib-common/objects';
import {
  type CacheReader,
  ensureFinalizer,
  hasFinalizer,
  removeFinalizer,
} from '@stackops/lib-common/runtime';
import type { KeystoneAPI } from '../../api/keystone-api.js';
import type { IdentityClient } from '../../identity/client.js';
import type { IdentityClientPool } from '../../identity/client-pool.js';
import { adminAccess, gateOnKeystoneAPI } from './keystone-api-access.js';

/** Kubernetes Events for what a reconcile changed in Keystone (optional in tests). */
export interface EventSink {
  event(obj: KubeObject, type: 'Normal' | 'Warning', reason: string, message: string): void;
}

export interface DependantReconcilerOptions {
  client: KubeClient;
  cache: CacheReader;
  pool: IdentityClientPool;
}

export interface DependantOutcome {
  requeueAfterMs?: number;
}

/** One reconcile of a KeystoneService or KeystoneEndpoint. */
export interface DependantPass<T extends KubeObject, S> {
  cr: T;
  conditions: Conditions;
  /** The status being built; patched once at the end (unless the object was released). */
  status: S;
  /** What changed in Keystone, in words for Events (never a password). */
  changes: string[];
  /** Keystone as the KeystoneAPI's admin (system scope), and the region to register in. */
  identity?: IdentityClient;
  region?: string;
}

/** What differs between the two kinds that register things in Keystone for a KeystoneAPI. */
export interface DependantDefinition<T extends KubeObject, S> {
  kind: KindRef;
  /** The object's own finalizer (`openstack.org/keystoneservice` / `…keystoneendpoint`). */
  finalizer: string;
  /** Conditions initialised (Unknown) at the start of every pass. */
  conditions: readonly ConditionInput[];
  initialStatus(cr: T): S;
  /** Whether anything of this object is registered in Keystone (deletion needs no Keystone otherwise). */
  registered(status: S): boolean;
  /** Normal reconcile, with keystone ready and an admin client in `pass.identity`. */
  register(pass: DependantPass<T, S>, api: KeystoneAPI): Promise<DependantOutcome>;
  /** Deletion with keystone ready: remove what was registered. */
  unregister(pass: DependantPass<T, S>): Promise<void>;
  /** Drops the finalizers this object holds on its parents (the KeystoneAPI, a KeystoneService). */
  releaseParents(pass: DependantPass<T, S>, api: KeystoneAPI | undefined): Promise<void>;
}

export function ignoreNotFound(err: unknown): undefined {
  if (isNotFound(err)) return undefined;
  throw err;
}

/**
 * The flow both dependants share: own finalizer; the KeystoneAPI gate (not found,
 * being deleted, not ready); the admin client; then register, or unregister and release the
 * finalizers. Conditions are re-initialised every pass, Ready computed at the end, unchanged
 * transition times kept, and the status patched only when it changed.
 */
export async function reconcileDependant<T extends KubeObject & { status?: { conditions?: unknown } }, S>(
  def: DependantDefinition<T, S>,
  opts: DependantReconcilerOptions,
  cr: T,
  events?: EventSink,
): Promise<DependantOutcome> {
  const saved: Condition[] = Conditions.from(cr.status?.conditions).list();
  const pass: DependantPass<T, S> = {
    cr,
    conditions: new Conditions().init(def.conditions),
    status: def.initialStatus(cr),
    changes: [],
  };
  let released = false;
  const release = async (api: KeystoneAPI | undefined) => {
    await def.releaseParents(pass, api);
    await removeFinalizer(opts.client, def.kind, pass.cr, def.finalizer).catch(ignoreNotFound);
    released = true;
  };
  try {
    const deleting = cr.metadata.deletionTimestamp !== undefined;
    if (deleting && !hasFinalizer(cr, def.finalizer)) {
      released = true;
      return {};
    }
    if (!deleting) pass.cr = await ensureFinalizer(opts.client, def.kind, cr, def.finalizer);
    const namespace = cr.metadata.namespace ?? '';
    const gate = gateOnKeystoneAPI(
      opts.cache,
      namespace,
      deleting,
      def.registered(pass.status),
      pass.conditions,
    );
    if (gate.next === 'wait') return { requeueAfterMs: gate.requeueAfterMs };
    if (gate.next === 'release-only') {
      await release(gate.api);
      return {};
    }
    const access = await adminAccess(opts.cache, opts.pool, gate.api, pass.conditions);
    if (access.state === 'waiting') return { requeueAfterMs: access.requeueAfterMs };
    pass.identity = access.identity;
    pass.region = access.region;
    if (!deleting) return await def.register(pass, gate.api);
    await def.unregister(pass);
    await release(gate.api);
    return {};
  } finally {
    for (const change of pass.changes) events?.event(pass.cr, 'Normal', 'KeystoneUpdated', change);
    if (!released) {
      pass.conditions.computeReady().restoreLastTransitionTimes(saved);
      const status = { ...pass.status, conditions: pass.conditions.toJSON() };
      await patchStatusIfChanged(opts.client, def.kind, pass.cr, status).catch(ignoreNotFound);
    }
  }
}

/** Adapts a reconciler to the runtime: Events through the manager's recorder, requeue in ms. */
export function runtimeReconcile<T extends KubeObject>(
  reconcile: (obj: T, events: EventSink) => Promise<DependantOutcome>,
) {
  return async (obj: T, ctx: { recorder: { event: EventSink['event'] } }) => {
    const events: EventSink = {
      event: (o, type, reason, message) => void ctx.recorder.event(o, type, reason, message),
    };
    const out = await reconcile(obj, events);
    return out.requeueAfterMs !== undefined ? { requeueAfter: out.requeueAfterMs } : {};
  };
}

/** A reconciler for one dependant kind, given its definition. */
export class DependantReconciler<T extends KubeObject & { status?: { conditions?: unknown } }, S> {
  constructor(
    private readonly def: DependantDefinition<T, S>,
    private readonly opts: DependantReconcilerOptions,
  ) {}

  reconcile(cr: T, events?: EventSink): Promise<DependantOutcome> {
    return reconcileDependant(this.def, this.opts, cr, events);
  }
}
