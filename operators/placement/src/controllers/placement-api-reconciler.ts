import { type Condition, Conditions, ConditionType } from '@stackops/lib-common/conditions';
import { ApiError, isForbidden, isNotFound, patchStatusIfChanged } from '@stackops/lib-common/resources';
import { ensureFinalizer } from '@stackops/lib-common/runtime';
import { PLACEMENT_API_FINALIZER, type PlacementAPIStatus } from '../api/index.js';
import { type PlacementAPI, PlacementAPIKind } from '../api/kinds.js';
import { placementConditionTypes } from './conditions.js';
import type { PlacementDefaults, ReconcileState, StepIo, StepResult } from './state.js';
import { reconcileDatabase } from './steps/database.js';
import { reconcileDbSync } from './steps/db-sync.js';
import { reconcileDelete } from './steps/deletion.js';
import { reconcileDeployment } from './steps/deployment.js';
import { reconcileInputHash } from './steps/input-hash.js';
import { reconcileInputSecret } from './steps/input-secret.js';
import { reconcileKeystoneRegistration } from './steps/keystone-registration.js';
import { reconcileNetworkAttachments } from './steps/network-attachments.js';
import { reconcileRbac } from './steps/rbac.js';
import { reconcileServiceConfig } from './steps/service-config.js';
import { reconcileServices } from './steps/services.js';

type Step = (s: ReconcileState, io: StepIo) => StepResult | Promise<StepResult>;

/** The reconcile of a PlacementAPI, in upstream's order; each step may end it. */
export const placementSteps: readonly Step[] = [
  reconcileRbac,
  reconcileInputSecret,
  reconcileDatabase,
  reconcileServiceConfig,
  reconcileInputHash,
  reconcileNetworkAttachments,
  reconcileServices,
  reconcileDbSync,
  reconcileDeployment,
  reconcileKeystoneRegistration,
];

export interface ReconcileOutcome {
  requeueAfter?: number;
}

/** A write refused because the namespace is being deleted (the API server's 403 for that case). */
const isNamespaceTerminating = (err: unknown): boolean =>
  isForbidden(err) && err instanceof ApiError && err.statusMessage.includes('because it is being terminated');

/** An Event when Ready flips: Normal when it became True, Warning when it was lost. */
function announceReadyChange(before: Condition | undefined, after: Condition | undefined, io: StepIo): void {
  if (!after || before?.status === after.status) return;
  if (after.status === 'True') io.event('Normal', 'Ready', after.message ?? 'Setup complete');
  else if (before?.status === 'True') io.event('Warning', 'NotReady', after.message ?? '');
}

/** The status a reconcile starts from: what is known stays (so an early stop does not wipe it). */
function initialStatus(cr: PlacementAPI): ReconcileState['status'] {
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

  async reconcile(cr: PlacementAPI, io: StepIo): Promise<ReconcileOutcome> {
    const state: ReconcileState = {
      cr,
      conditions: new Conditions().init(placementConditionTypes),
      status: initialStatus(cr),
      defaults: this.defaults,
      inputHashes: {},
      podAnnotations: {},
      networkAttachments: [],
    };
    if (cr.metadata.deletionTimestamp) {
      await reconcileDelete(state, io);
      return {};
    }
    if (!cr.metadata.finalizers?.includes(PLACEMENT_API_FINALIZER)) {
      await ensureFinalizer(io.client, PlacementAPIKind, cr, PLACEMENT_API_FINALIZER);
    }
    let result: StepResult;
    try {
      for (const step of placementSteps) {
        result = await step(state, io);
        if (result) break;
      }
    } catch (err) {
      // The namespace is going away: its deletion reaches this PlacementAPI next; retrying is noise.
      if (isNamespaceTerminating(err)) return {};
      throw err;
    } finally {
      await this.writeStatus(state, io).catch((err: unknown) => {
        if (!isNamespaceTerminating(err)) throw err;
      });
    }
    return result?.requeueAfter !== undefined ? { requeueAfter: result.requeueAfter } : {};
  }

  private async writeStatus(s: ReconcileState, io: StepIo): Promise<void> {
    const previous = Conditions.from(s.cr.status?.conditions);
    s.conditions.computeReady().restoreLastTransitionTimes(previous.list());
    const status: PlacementAPIStatus = { ...s.status, conditions: s.conditions.toJSON() };
    let patched: boolean;
    try {
      ({ patched } = await patchStatusIfChanged(io.client, PlacementAPIKind, s.cr, status));
    } catch (err) {
      // Deleted meanwhile (its finalizer was already gone): nothing left to report on.
      if (isNotFound(err)) return;
      throw err;
    }
    if (patched)
      announceReadyChange(previous.get(ConditionType.Ready), s.conditions.get(ConditionType.Ready), io);
  }
}
