import { type Condition, Conditions } from '@stackops/lib-common/conditions';
import {
  isForbidden,
  isNotFound,
  type KubeClient,
  type ObjectRef,
  patchStatusIfChanged,
} from '@stackops/lib-common/resources';
import { KeystoneFinalizers } from '../api/finalizers.js';
import { KeystoneKinds } from '../api/group.js';
import type { KeystoneAPI } from '../api/keystone-api.js';
import { type ImageDefaults, resolveSpec } from '../resources/spec.js';
import { ensureCloudConfig } from './keystone-api/cloud-config.js';
import { initialConditionTypes } from './keystone-api/conditions.js';
import { checkInputHash, ensureConfigSecret } from './keystone-api/config.js';
import {
  type EventSink,
  type Logger,
  type Reader,
  SOON_MS,
  type Step,
  type StepContext,
} from './keystone-api/context.js';
import { ensureCronJob } from './keystone-api/cronjob.js';
import { ensureDatabase } from './keystone-api/database.js';
import { reconcileDelete } from './keystone-api/delete.js';
import { ensureDeployment } from './keystone-api/deployment.js';
import { publishExternalEndpoints } from './keystone-api/external.js';
import { addFinalizer } from './keystone-api/finalizers.js';
import { checkInputSecret } from './keystone-api/input.js';
import { runBootstrap, runDbSync } from './keystone-api/jobs.js';
import { ensureFernetKeys } from './keystone-api/keys.js';
import { checkMemcached } from './keystone-api/memcached.js';
import { resolveNetworks } from './keystone-api/networks.js';
import { ensureRbac } from './keystone-api/rbac.js';
import { ensureServices } from './keystone-api/services.js';

/** Upstream's order (reference §3.2); each step either continues or ends the pass. */
export const NORMAL_STEPS: readonly Step[] = [
  checkInputSecret,
  ensureDatabase,
  checkMemcached,
  ensureConfigSecret,
  ensureFernetKeys,
  checkInputHash,
  resolveNetworks,
  ensureRbac,
  runDbSync,
  ensureServices,
  runBootstrap,
  ensureDeployment,
  ensureCronJob,
  ensureCloudConfig,
];

export const EXTERNAL_STEPS: readonly Step[] = [
  checkInputSecret,
  publishExternalEndpoints,
  ensureCloudConfig,
];

export interface KeystoneApiReconcilerOptions {
  client: KubeClient;
  reader: Reader;
  images: ImageDefaults;
  now?: () => Date;
}

export interface ReconcileOutcome {
  requeueAfterMs?: number;
}

/** Per-call extras the runtime hands in (events and a logger carrying the object key). */
export interface ReconcileExtras {
  events?: EventSink;
  log?: Logger;
}

/**
 * Reconciles one KeystoneAPI: conditions re-initialised every pass, steps in upstream's order,
 * then Ready computed, unchanged transition times restored and the status patched only if it changed.
 */
export class KeystoneApiReconciler {
  constructor(private readonly opts: KeystoneApiReconcilerOptions) {}

  async reconcile(ref: ObjectRef, extras: ReconcileExtras = {}): Promise<ReconcileOutcome> {
    const cr = await this.opts.reader.get<KeystoneAPI>(KeystoneKinds.KeystoneAPI, ref);
    if (!cr) return {};
    const ctx = this.context(cr, extras);
    const saved: Condition[] = Conditions.from(cr.status?.conditions).list();
    try {
      return await this.run(ctx, cr.status?.conditions === undefined);
    } catch (err) {
      // The namespace is going away: creating children is refused, and the KeystoneAPI's own
      // deletion (which brings it back here) is coming. Retrying now would only spin.
      if (isNamespaceTerminating(err)) return {};
      throw err;
    } finally {
      await this.finish(ctx, saved);
    }
  }

  private context(cr: KeystoneAPI, extras: ReconcileExtras): StepContext {
    const spec = resolveSpec(cr, this.opts.images);
    const conditions = new Conditions([], { now: this.opts.now ?? (() => new Date()) });
    conditions.init(initialConditionTypes(spec));
    return {
      cr,
      spec,
      client: this.opts.client,
      reader: this.opts.reader,
      conditions,
      status: {
        ...cr.status,
        hash: { ...cr.status?.hash },
        apiEndpoints: { ...cr.status?.apiEndpoints },
        networkAttachments: { ...cr.status?.networkAttachments },
        observedGeneration: cr.metadata.generation ?? 0,
      },
      images: this.opts.images,
      now: this.opts.now ?? (() => new Date()),
      events: extras.events,
      log: extras.log,
      inputs: {},
    };
  }

  private async run(ctx: StepContext, isNew: boolean): Promise<ReconcileOutcome> {
    const deleting = ctx.cr.metadata.deletionTimestamp !== undefined;
    if (!deleting) {
      const added = await addFinalizer(
        ctx.client,
        KeystoneKinds.KeystoneAPI,
        ctx.cr,
        KeystoneFinalizers.KeystoneAPI,
      );
      // The status written in `finish` (and the finalizer update) bring the next pass.
      if (added || isNew) return { requeueAfterMs: SOON_MS };
    } else {
      await reconcileDelete(ctx);
      return {};
    }
    const steps = ctx.spec.externalKeystoneAPI ? EXTERNAL_STEPS : NORMAL_STEPS;
    for (const step of steps) {
      const result = await step(ctx);
      if (result) return withWake(ctx, result.requeueAfterMs);
    }
    return withWake(ctx, undefined);
  }

  private async finish(ctx: StepContext, saved: Condition[]): Promise<void> {
    if (ctx.cr.metadata.deletionTimestamp !== undefined && ctx.cr.metadata.finalizers?.length === 1) {
      // Our finalizer was the last one: the object is gone (or going); nothing to report.
      return;
    }
    ctx.conditions.computeReady().restoreLastTransitionTimes(saved);
    const status = { ...ctx.status, conditions: ctx.conditions.toJSON() };
    try {
      await patchStatusIfChanged(ctx.client, KeystoneKinds.KeystoneAPI, ctx.cr, status);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
}

const isNamespaceTerminating = (err: unknown): boolean =>
  isForbidden(err) && err instanceof Error && err.message.includes('because it is being terminated');

/** The earlier of a step's requeue and the next fernet rotation. */
function withWake(ctx: StepContext, requeueAfterMs: number | undefined): ReconcileOutcome {
  const candidates = [requeueAfterMs, ctx.wakeAfterMs].filter((v): v is number => v !== undefined);
  return candidates.length > 0 ? { requeueAfterMs: Math.min(...candidates) } : {};
}
