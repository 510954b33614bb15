import { ApiError, isForbidden, isNotFound, type KubeClient } from '@stackops/lib-common/client';
import { type Condition, Conditions, ConditionType } from '@stackops/lib-common/conditions';
import type { Logger } from '@stackops/lib-common/logging';
import { patchStatusIfChanged } from '@stackops/lib-common/objects';
import { type CacheReader, type EventType, ensureFinalizer } from '@stackops/lib-common/runtime';
import { PLACEMENT_API_FINALIZER, type PlacementAPIStatus } from '../../api/index.js';
import { type PlacementAPI, PlacementAPIKind } from '../../api/kinds.js';
import type { PlacementDefaults } from '../../config/defaults.js';
import { placementConditionTypes } from './conditions.js';
import type { PlacementApiPass, PlacementApiStep, StepResult } from './context.js';
import { databaseStep } from './steps/database.js';
import { dbSyncStep } from './steps/db-sync.js';
import { deletionStep } from './steps/deletion.js';
import { deploymentStep } from './steps/deployment.js';
import { inputHashStep } from './steps/input-hash.js';
import { inputSecretStep } from './steps/input-secret.js';
import { keystoneRegistrationStep } from './steps/keystone-registration.js';
import { networkAttachmentsStep } from './steps/network-attachments.js';
import { rbacStep } from './steps/rbac.js';
import { serviceConfigStep } from './steps/service-config.js';
import { servicesStep } from './steps/services.js';

/** The reconcile of a PlacementAPI, in upstream's order; each step may end it. */
export const PLACEMENT_API_STEPS: readonly PlacementApiStep[] = [
  rbacStep,
  inputSecretStep,
  databaseStep,
  serviceConfigStep,
  inputHashStep,
  networkAttachmentsStep,
  servicesStep,
  dbSyncStep,
  deploymentStep,
  keystoneRegistrationStep,
];

export interface ReconcileOutcome {
  requeueAfterMs?: number;
}

/** What the runtime hands in for one reconcile. */
export interface ReconcileIo {
  client: KubeClient;
  cache: CacheReader;
  log: Logger;
  /** Records a Kubernetes Event on the PlacementAPI (never with secret values). */
  event(type: EventType, reason: string, message: string): void;
}

/** A write refused because the namespace is being deleted (the API server's 403 for that case). */
const isNamespaceTerminating = (err: unknown): boolean =>
  isForbidden(err) && err instanceof ApiError && err.statusMessage.includes('because it is being terminated');

/** An Event when Ready flips: Normal when it became True, Warning when it was lost. */
function announceReadyChange(
  before: Condition | undefined,
  after: Condition | undefined,
  ctx: PlacementApiPass,
): void {
  if (!after || before?.status === after.status) return;
  if (after.status === 'True') ctx.event('Normal', 'Ready', after.message ?? 'Setup complete');
  else if (before?.status === 'True') ctx.event('Warning', 'NotReady', after.message ?? '');
}

/** The status a reconcile starts from: what is known stays (so an early stop does not wipe it). */
function initialStatus(cr: PlacementAPI): PlacementApiPass['status'] {
  const { conditions: _c, ...previous } = cr.status ?? {};
  return { ...previous, hash: { ...cr.status?.hash }, observedGeneration: cr.metadata.generation };
}

/**
 * Reconciles one PlacementAPI: conditions re-initialised, the steps run until one ends the pass,
 * then Ready is computed, unchanged transition times restored and the status written only if it
 * changed — also when a step failed (the error is rethrown afterwards, for the retry with backoff).
 */
export class PlacementApiReconciler {
  constructor(private readonly defaults: PlacementDefaults) {}

  async reconcile(cr: PlacementAPI, io: ReconcileIo): Promise<ReconcileOutcome> {
    const ctx: PlacementApiPass = {
      cr,
      defaults: this.defaults,
      client: io.client,
      cache: io.cache,
      log: io.log,
      event: io.event,
      conditions: new Conditions().init(placementConditionTypes),
      status: initialStatus(cr),
      inputs: {},
      podAnnotations: {},
      networkAttachments: [],
    };
    if (cr.metadata.deletionTimestamp) {
      await deletionStep(ctx);
      return {};
    }
    if (!cr.metadata.finalizers?.includes(PLACEMENT_API_FINALIZER)) {
      await ensureFinalizer(io.client, PlacementAPIKind, cr, PLACEMENT_API_FINALIZER);
    }
    let result: StepResult;
    try {
      for (const step of PLACEMENT_API_STEPS) {
        result = await step(ctx);
        if (result) break;
      }
    } catch (err) {
      // The namespace is going away: its deletion reaches this PlacementAPI next; retrying is noise.
      if (isNamespaceTerminating(err)) return {};
      throw err;
    } finally {
      await this.writeStatus(ctx).catch((err: unknown) => {
        if (!isNamespaceTerminating(err)) throw err;
      });
    }
    return result?.requeueAfterMs !== undefined ? { requeueAfterMs: result.requeueAfterMs } : {};
  }

  private async writeStatus(ctx: PlacementApiPass): Promise<void> {
    const previous = Conditions.from(ctx.cr.status?.conditions);
    ctx.conditions.computeReady().restoreLastTransitionTimes(previous.list());
    const status: PlacementAPIStatus = { ...ctx.status, conditions: ctx.conditions.toJSON() };
    let patched: boolean;
    try {
      ({ patched } = await patchStatusIfChanged(ctx.client, PlacementAPIKind, ctx.cr, status));
    } catch (err) {
      // Deleted meanwhile (its finalizer was already gone): nothing left to report on.
      if (isNotFound(err)) return;
      throw err;
    }
    if (patched)
      announceReadyChange(previous.get(ConditionType.Ready), ctx.conditions.get(ConditionType.Ready), ctx);
  }
}
