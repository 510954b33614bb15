import { pipeline } from '@stackops/lib-common/pipeline';
import { type NetworkAddonsConfig, NetworkAddonsConfigKind } from '../api/kinds.js';
import type { NetworkAddonsConfigStatus } from '../api/network-addons-config.js';
import type { NetworkAddonsPass, NetworkAddonsSettings } from './context.js';
import { finishStatus, recordFailure } from './status.js';
import { applyObjects } from './steps/apply-objects.js';
import { fillFromPreviousConfig } from './steps/fill-defaults.js';
import { ignoreOtherConfigs } from './steps/ignore-other-configs.js';
import { pruneStaleObjects } from './steps/prune-objects.js';
import { renderObjects } from './steps/render-objects.js';
import { trackRollout } from './steps/track-rollout.js';
import { validateSpec } from './steps/validate-spec.js';

/** Upstream's order: validate, fill defaults from the previous spec, render, apply, prune, track the rollout. */
const NETWORK_ADDONS_STEPS = [
  ignoreOtherConfigs,
  validateSpec,
  fillFromPreviousConfig,
  renderObjects,
  applyObjects,
  pruneStaleObjects,
  trackRollout,
] as const;

/**
 * The NetworkAddonsConfig reconciler. No finalizer: what the CR owns goes with it through garbage
 * collection, and CRDs stay. An invalid spec is Degraded until the spec changes; a failed render,
 * apply or delete is Degraded and retried with backoff; a deployed configuration comes back when
 * anything it rendered changes (the controller's watches).
 */
export function networkAddonsConfigReconciler(settings: NetworkAddonsSettings, now?: () => Date) {
  // Reconciles of one object never overlap, so one map serves every pass.
  const statusChanges = new Map<string, number>();
  return pipeline<NetworkAddonsConfig, NetworkAddonsConfigStatus, NetworkAddonsPass>({
    kind: NetworkAddonsConfigKind,
    context: (pass) => ({ ...pass, settings, statusChanges }),
    steps: NETWORK_ADDONS_STEPS,
    failed: recordFailure,
    finish: finishStatus,
    // Its conditions are Available/Progressing/Degraded, with upstream's own Events (status/events.ts).
    readyEvents: false,
    // What it writes is logged one line each; its Event stays upstream's one `Modified` per rollout.
    recordWrites: 'logs',
    ...(now ? { now } : {}),
  });
}
