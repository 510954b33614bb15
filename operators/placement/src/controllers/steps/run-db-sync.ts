import { Kinds } from '@stackops/lib-common/client';
import { ConditionType } from '@stackops/lib-common/conditions';
import {
  type JobObject,
  markJobCondition,
  runHashGatedJob,
  withPodPlacement,
} from '@stackops/lib-common/openstack';
import { type StepResult, stop } from '@stackops/lib-common/pipeline';
import { HASH_DBSYNC } from '../../api/constants.js';
import { dbSyncJob } from '../../resources/db-sync-job.js';
import { apiImage, type PlacementApiPass } from '../context.js';

/**
 * The hash-gated `<name>-db-sync` Job (placement-manage db sync): runs when its pod spec changed
 * since the last success, which is recorded in `status.hash.dbsync`. A Topology's placement goes on its pod.
 */
export async function runDbSync(ctx: PlacementApiPass): Promise<StepResult> {
  const { cr } = ctx;
  const job = withPodPlacement(dbSyncJob(cr, apiImage(ctx), ctx.podAnnotations) as JobObject, ctx.topology);
  let result: Awaited<ReturnType<typeof runHashGatedJob>>;
  try {
    result = await runHashGatedJob(ctx.client, cr, job, {
      previousHash: ctx.status.hash[HASH_DBSYNC],
      preserveJobs: cr.spec.preserveJobs,
      current:
        ctx.cache.get<JobObject>(Kinds.Job, {
          name: job.metadata.name!,
          namespace: cr.metadata.namespace!,
        }) ?? null,
    });
  } catch (err) {
    ctx.conditions.markError(ConditionType.DBSyncReady, err instanceof Error ? err.message : String(err));
    throw err;
  }
  markJobCondition(ctx.conditions, ConditionType.DBSyncReady, result);
  if (result.state !== 'succeeded') return stop();
  if (result.hashToRecord) ctx.status.hash[HASH_DBSYNC] = result.hashToRecord;
  return undefined;
}
