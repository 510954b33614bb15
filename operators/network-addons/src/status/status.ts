import type {
  DeployedContainer,
  NetworkAddonsConfigStatus,
  OpenshiftCondition,
} from '../api/network-addons-config.js';
import {
  ConditionType,
  type DesiredCondition,
  findCondition,
  removeCondition,
  setCondition,
} from './conditions.js';
import { availableEvent, type ConfigEvent, failedEvent, progressingEvent } from './events.js';
import { PODS_FAILING_REASON } from './pod-failures.js';

/** A failure that stops the reconcile: the Degraded reason (FailedToValidate, FailedToApply, …) and message. */
interface Failure {
  reason: string;
  message: string;
}

/** What one reconcile found. */
export type Outcome =
  | { kind: 'failed'; failure: Failure }
  | {
      kind: 'applied';
      /** Why tracked DaemonSets/Deployments are not rolled out yet (empty when they all are). */
      progressing: string[];
      /** Tracked workloads whose pods fail to start (`podFailures`); Degraded while any. */
      failing?: string[];
      containers: DeployedContainer[];
    };

export interface StatusUpdate {
  status: NetworkAddonsConfigStatus;
  events: ConfigEvent[];
}

/**
 * The status after a reconcile, from the status before it (upstream's status-manager glue, made a
 * pure function of the outcome):
 * - failed: Degraded=True with the reason; Available=False/Failing; Progressing=False/InvalidConfiguration;
 *   the containers of the last successful apply are kept.
 * - rolling out: Degraded=False; Progressing=True/Deploying with one line per workload; Available=False/Startup.
 * - pods failing (beyond upstream, which stays Progressing): as rolling out, and Degraded=True/PodsFailing
 *   with one line per workload naming its pod and the container's waiting reason, with a Warning Event.
 * - rolled out: Degraded=False; Progressing=False; Available=True; observedVersion = operator version.
 * operatorVersion and targetVersion are always the running operator's; observedGeneration is the
 * generation just processed; the legacy `Failing` is dropped.
 */
export function computeStatus(
  before: NetworkAddonsConfigStatus | undefined,
  outcome: Outcome,
  versions: { operatorVersion: string; generation: number | undefined },
  now: string,
): StatusUpdate {
  const { operatorVersion } = versions;
  const events: ConfigEvent[] = [];
  let conditions: OpenshiftCondition[] = removeCondition(before?.conditions ?? [], 'Failing');
  const set = (c: DesiredCondition) => {
    conditions = setCondition(conditions, c, now);
  };
  const was = (type: string) => findCondition(before?.conditions, type);
  let observedVersion = before?.observedVersion;
  let containers = before?.containers ?? [];

  const degrade = ({ reason, message }: Failure) => {
    const degraded = was(ConditionType.Degraded);
    if (degraded?.status !== 'True' || degraded.reason !== reason || degraded.message !== message) {
      events.push(failedEvent(reason, message));
    }
    set({ type: ConditionType.Degraded, status: 'True', reason, message });
  };

  if (outcome.kind === 'failed') {
    degrade(outcome.failure);
    set({
      type: ConditionType.Available,
      status: 'False',
      reason: 'Failing',
      message: 'Unable to apply desired configuration',
    });
    set({
      type: ConditionType.Progressing,
      status: 'False',
      reason: 'InvalidConfiguration',
      message: 'Human interaction is needed, please fix the desired configuration',
    });
  } else {
    containers = outcome.containers;
    const failing = outcome.failing ?? [];
    if (failing.length > 0) degrade({ reason: PODS_FAILING_REASON, message: failing.join('\n') });
    else set({ type: ConditionType.Degraded, status: 'False' });
    if (outcome.progressing.length > 0) {
      if (was(ConditionType.Progressing)?.status !== 'True') events.push(progressingEvent);
      set({
        type: ConditionType.Progressing,
        status: 'True',
        reason: 'Deploying',
        message: outcome.progressing.join('\n'),
      });
      set({
        type: ConditionType.Available,
        status: 'False',
        reason: 'Startup',
        message: 'Configuration is in process',
      });
    } else {
      if (was(ConditionType.Available)?.status !== 'True') events.push(availableEvent);
      set({ type: ConditionType.Progressing, status: 'False' });
      set({ type: ConditionType.Available, status: 'True' });
      observedVersion = operatorVersion;
    }
  }

  const status: NetworkAddonsConfigStatus = {
    conditions,
    ...(versions.generation !== undefined ? { observedGeneration: versions.generation } : {}),
    operatorVersion,
    targetVersion: operatorVersion,
    ...(observedVersion ? { observedVersion } : {}),
    containers,
  };
  return { status, events };
}

/** The status of a NetworkAddonsConfig that is not the singleton: one clear reason, nothing deployed. */
export function ignoredStatus(
  before: NetworkAddonsConfigStatus | undefined,
  name: string,
  singleton: string,
  versions: { operatorVersion: string; generation: number | undefined },
  now: string,
): NetworkAddonsConfigStatus {
  const { operatorVersion } = versions;
  const message = `NetworkAddonsConfig "${name}" is ignored: only the one named "${singleton}" is acted on`;
  let conditions = removeCondition(before?.conditions ?? [], 'Failing');
  for (const c of [
    { type: ConditionType.Available, status: 'False', reason: 'Ignored', message },
    { type: ConditionType.Progressing, status: 'False', reason: 'Ignored', message },
    { type: ConditionType.Degraded, status: 'True', reason: 'Ignored', message },
  ] as const) {
    conditions = setCondition(conditions, c, now);
  }
  return {
    conditions,
    ...(versions.generation !== undefined ? { observedGeneration: versions.generation } : {}),
    operatorVersion,
    targetVersion: operatorVersion,
  };
}
