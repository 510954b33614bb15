import { isForbidden, isNotFound, type KubeClient, type ObjectRef } from '@stackops/lib-common/client';
import { type Condition, Conditions } from '@stackops/lib-common/conditions';
import { createLogger, type Logger } from '@stackops/lib-common/logging';
import { patchStatusIfChanged } from '@stackops/lib-common/objects';
import { type CacheReader, type EventType, ensureFinalizer } from '@stackops/lib-common/runtime';
import { KeystoneFinalizers } from '../../api/finalizers.js';
import { KeystoneKinds } from '../../api/group.js';
import type { KeystoneAPI } from '../../api/keystone-api.js';
import type { KeystoneDefaults } from '../../config/defaults.js';
import { resolveSpec } from '../../config/spec.js';
import { initialConditionTypes } from './conditions.js';
import { type KeystoneApiPass, type KeystoneApiStep, SOON_MS } from './context.js';
import { bootstrapStep } from './steps/bootstrap.js';
import { cloudConfigStep } from './steps/cloud-config.js';
import { cronJobStep } from './steps/cronjob.js';
import { databaseStep } from './steps/database.js';
import { dbSyncStep } from './steps/db-sync.js';
import { deletionStep } from './steps/deletion.js';
import { deploymentStep } from './steps/deployment.js';
import { externalEndpointsStep } from './steps/external-endpoints.js';
import { fernetKeysStep } from './steps/fernet-keys.js';
import { inputHashStep } from './steps/input-hash.js';
import { inputSecretStep } from './steps/input-secret.js';
import { memcachedStep } from './steps/memcached.js';
import { networkAttachmentsStep } from './steps/network-attachments.js';
import { rbacStep } from './steps/rbac.js';
import { serviceConfigStep } from './steps/service-config.js';
import { servicesStep } from './steps/services.js';

/**
 * Upstream's order: input, database, memcached, config, keys, the input hash, networks, RBAC,
 * db_sync, Services, bootstrap (needs the Service URLs), the API Deployment, the trust-flush
 * CronJob, and clients' cloud config. Each step either continues or ends the pass.
 */
export const KEYSTONE_API_STEPS: readonly KeystoneApiStep[] = [
  inputSecretStep,
  databaseStep,
  memcachedStep,
  serviceConfigStep,
  fernetKeysStep,
  inputHashStep,
  networkAttachmentsStep,
  rbacStep,
  dbSyncStep,
  servicesStep,
  bootstrapStep,
  deploymentStep,
  cronJobStep,
  cloudConfigStep,
];

/** External mode: Keystone runs elsewhere; only its endpoints and the clients' config are published. */
export const EXTERNAL_KEYSTONE_API_STEPS: readonly KeystoneApiStep[] = [
  inputSecretStep,
  externalEndpointsStep,
  cloudConfigStep,
];

export interface KeystoneApiReconcilerOptions {
  client: KubeClient;
  cache: CacheReader;
  defaults: KeystoneDefaults;
  now?: () => Date;
}

export interface ReconcileOutcome {
  requeueAfterMs?: number;
}

/** Per-call extras the runtime hands in (Events and a logger carrying the object key). */
export interface ReconcileExtras {
  event?: (type: EventType, reason: string, message: string) => void;
  log?: Logger;
}

const silent = createLogger({ name: 'keystone-operator', level: 'silent', pretty: false });

/**
 * Reconciles one KeystoneAPI: conditions re-initialised every pass, steps in upstream's order,
 * then Ready computed, unchanged transition times restored and the status patched only if it changed.
 */
export class KeystoneApiReconciler {
  constructor(private readonly opts: KeystoneApiReconcilerOptions) {}

  async reconcile(ref: ObjectRef, extras: ReconcileExtras = {}): Promise<ReconcileOutcome> {
    const cr = this.opts.cache.get<KeystoneAPI>(KeystoneKinds.KeystoneAPI, ref);
    if (!cr) return {};
    const ctx = this.pass(cr, extras);
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

  private pass(cr: KeystoneAPI, extras: ReconcileExtras): KeystoneApiPass & { wakeAfterMs?: number } {
    const spec = resolveSpec(cr, this.opts.defaults);
    const now = this.opts.now ?? (() => new Date());
    const conditions = new Conditions([], { now });
    conditions.init(initialConditionTypes(spec));
    const pass: KeystoneApiPass & { wakeAfterMs?: number } = {
      cr,
      spec,
      defaults: this.opts.defaults,
      client: this.opts.client,
      cache: this.opts.cache,
      log: extras.log ?? silent,
      conditions,
      status: {
        ...cr.status,
        hash: { ...cr.status?.hash },
        apiEndpoints: { ...cr.status?.apiEndpoints },
        networkAttachments: { ...cr.status?.networkAttachments },
        observedGeneration: cr.metadata.generation ?? 0,
      },
      event: (type, reason, message) => extras.event?.(type, reason, message),
      requeueAfter: (ms) => {
        pass.wakeAfterMs = pass.wakeAfterMs === undefined ? ms : Math.min(pass.wakeAfterMs, ms);
      },
      now,
      inputs: {},
    };
    return pass;
  }

  private async run(ctx: KeystoneApiPass & { wakeAfterMs?: number }, isNew: boolean) {
    const deleting = ctx.cr.metadata.deletionTimestamp !== undefined;
    if (deleting) {
      await deletionStep(ctx);
      return {};
    }
    const hadFinalizer = ctx.cr.metadata.finalizers?.includes(KeystoneFinalizers.KeystoneAPI) ?? false;
    if (!hadFinalizer) {
      ctx.cr = await ensureFinalizer(
        ctx.client,
        KeystoneKinds.KeystoneAPI,
        ctx.cr,
        KeystoneFinalizers.KeystoneAPI,
      );
    }
    // The status written in `finish` (and the finalizer update) bring the next pass.
    if (!hadFinalizer || isNew) return { requeueAfterMs: SOON_MS };
    const steps = ctx.spec.externalKeystoneAPI ? EXTERNAL_KEYSTONE_API_STEPS : KEYSTONE_API_STEPS;
    for (const step of steps) {
      const result = await step(ctx);
      if (result) return withWake(ctx, result.requeueAfterMs);
    }
    return withWake(ctx, undefined);
  }

  private async finish(ctx: KeystoneApiPass, saved: Condition[]): Promise<void> {
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
function withWake(ctx: { wakeAfterMs?: number }, requeueAfterMs: number | undefined): ReconcileOutcome {
  const candidates = [requeueAfterMs, ctx.wakeAfterMs].filter((v): v is number => v !== undefined);
  return candidates.length > 0 ? { requeueAfterMs: Math.min(...candidates) } : {};
}
