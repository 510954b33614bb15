import { ConditionType } from '@stackops/lib-common/conditions';
import {
  type AdoptableJob,
  type JobObject,
  markAdoptableJobRuns,
  runJobStep,
  withPodPlacement,
} from '@stackops/lib-common/openstack';
import type { StepResult } from '@stackops/lib-common/pipeline';
import type { JobInput } from '../../resources/jobs.js';
import { KeystoneNames } from '../../resources/names.js';
import { type KeystoneApiPass, specForPods } from './context.js';

/** `status.hash` key of the db-sync Job (upstream's name). */
export const DB_SYNC_HASH = 'dbsync';
/** `status.hash` key of the bootstrap Job (upstream's name). */
export const BOOTSTRAP_HASH = 'bootstrap';

/** What keystone's Job builders need from a pass. */
export const jobInput = (ctx: KeystoneApiPass): JobInput => ({
  cr: ctx.cr,
  spec: specForPods(ctx),
  podAnnotations: ctx.podAnnotations ?? {},
});

/**
 * Runs one of keystone's hash-gated Jobs and reports it in `condition`: a running Job ends the
 * pass (its watch event brings the next), a failed one ends it until something changes, and a success records
 * its pod-spec hash under `status.hash[hashKey]`. The Topology's placement, if any, goes on its pods.
 */
export function runKeystoneJob(
  ctx: KeystoneApiPass,
  unplaced: JobObject,
  opts: { hashKey: string; condition: string },
): Promise<StepResult> {
  return runJobStep(ctx, withPodPlacement(unplaced, ctx.topology), {
    ...opts,
    apiDeployment: KeystoneNames.deployment,
    preserveJobs: ctx.spec.preserveJobs,
  });
}

/** keystone's hash-gated Jobs a switch from the Go operator may adopt (ADR 0048). */
const ADOPTABLE_JOBS: readonly AdoptableJob[] = [
  { hashKey: DB_SYNC_HASH, condition: ConditionType.DBSyncReady },
  { hashKey: BOOTSTRAP_HASH, condition: ConditionType.BootstrapReady },
];

/** First step of a pass: the Go operator's finished Job runs, proven by its own status, marked adoptable. */
export function markAdoptableRuns(ctx: KeystoneApiPass): StepResult {
  markAdoptableJobRuns(ctx.cr, ctx.previousStatus, ctx.status.hash, ADOPTABLE_JOBS);
  return undefined;
}
