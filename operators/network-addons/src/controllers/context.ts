import { errorDetail, type KindRef, type KubeObject } from '@stackops/lib-common/client';
import type { Pass, StepResult } from '@stackops/lib-common/pipeline';
import { stop } from '@stackops/lib-common/pipeline';
import { ReconcileError } from '@stackops/lib-common/runtime';
import type { NetworkAddonsConfig } from '../api/kinds.js';
import type { NetworkAddonsConfigStatus } from '../api/network-addons-config.js';
import type { OperatorEnv } from '../config/operator-env.js';
import type { RandomBytes } from '../network/kubemacpool-range.js';
import type { FilledSpec } from '../network/network.js';
import type { RenderedObject } from '../resources/render.js';
import type { Outcome } from '../status/status.js';

/** What the operator knows besides the CR: its environment. */
export interface NetworkAddonsSettings {
  env: OperatorEnv;
  random: RandomBytes;
}

/** What the steps of one NetworkAddonsConfig pass share and fill in, in step order. */
export interface NetworkAddonsPass extends Pass<NetworkAddonsConfig, NetworkAddonsConfigStatus> {
  readonly settings: NetworkAddonsSettings;
  /** When each NetworkAddonsConfig's status last changed (by uid): paces progress messages. */
  readonly statusChanges: Map<string, number>;
  /** The CR is not the singleton: it gets a status saying so, nothing is deployed. */
  ignored?: boolean;
  /** The spec with defaults filled from the previously applied one. */
  filled?: FilledSpec;
  /** Every kind this pass renders, and so owns and prunes: cert-manager's only while it is served. */
  kinds?: readonly KindRef[];
  /** The applied-config ConfigMap first, then every enabled component's objects. */
  rendered?: RenderedObject[];
  /** The live objects after the apply, in render order. */
  applied?: KubeObject[];
  /** How the pass went: what the status reports. */
  outcome?: Outcome;
}

/**
 * A failure the user has to fix (invalid or unsafe spec): Degraded with `reason`, and the pass
 * ends without a retry — the next spec change brings the next pass.
 */
export function invalidSpec(ctx: NetworkAddonsPass, reason: string, message: string): StepResult {
  ctx.outcome = { kind: 'failed', failure: { reason, message } };
  ctx.log.warn({ reason, err: message }, 'could not apply the configuration');
  return stop();
}

/** A failure retrying may fix (render, apply, delete): Degraded with `reason`, then retried with backoff. */
export const retryableFailure = (reason: string, message: string, cause?: unknown): ReconcileError =>
  new ReconcileError(message, { reason, severity: 'Warning', retry: 'backoff', cause });

/** What an error says to a user: the fields the API server refused, without the request's verb or URL, values cut. */
export const errorText = (err: unknown): string => errorDetail(err);

/** `(apps/v1, Kind=DaemonSet) ns/name`, as upstream names an object in its messages. */
export const describeObject = (obj: KubeObject): string =>
  `(${obj.apiVersion}, Kind=${obj.kind}) ${obj.metadata.namespace ?? ''}/${obj.metadata.name}`;
