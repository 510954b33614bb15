import { ConditionType } from '@stackops/lib-common/conditions';
import {
  type JobObject,
  markAdoptableJobRuns,
  runJobStep,
  withPodPlacement,
} from '@stackops/lib-common/openstack';
import type { StepResult } from '@stackops/lib-common/pipeline';
import { HASH_DBSYNC } from '../../api/constants.js';
import { dbSyncJob } from '../../resources/db-sync-job.js';
import { childNames } from '../../resources/names.js';
import { apiImage, type PlacementApiPass } from '../context.js';

/**
 * The hash-gated `<name>-db-sync` Job (placement-manage db sync): runs when its pod spec changed
 * since the last success, which is recorded in `status.hash.dbsync`. A Topology's placement goes on its pod.
 */
export function runDbSync(ctx: PlacementApiPass): Promise<StepResult> {
  const { cr } = ctx;
  return runJobStep(
    ctx,
    withPodPlacement(dbSyncJob(cr, apiImage(ctx), ctx.podAnnotations) as JobObject, ctx.topology),
    {
      hashKey: HASH_DBSYNC,
      condition: ConditionType.DBSyncReady,
      apiDeployment: childNames(cr.metadata.name!).deployment,
      preserveJobs: cr.spec.preserveJobs,
    },
  );
}

/**
 * First step of a pass: the Go operator's finished db-sync run, proven by its own status, marked
 * adoptable (ADR 0048) before anything can end the pass and replace that status.
 */
export function markAdoptableDbSync(ctx: PlacementApiPass): StepResult {
  markAdoptableJobRuns(ctx.cr, ctx.previousStatus, ctx.status.hash, [
    { hashKey: HASH_DBSYNC, condition: ConditionType.DBSyncReady },
  ]);
  return undefined;
}
