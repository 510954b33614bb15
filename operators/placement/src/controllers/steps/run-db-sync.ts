import { Kinds } from '@stackops/lib-common/client';
import { ConditionType } from '@stackops/lib-common/conditions';
import {
  adoptJobRun,
  type JobObject,
  keepAdoptedMessage,
  markAdoptableJobRuns,
  markJobCondition,
  runHashGatedJob,
  withPodPlacement,
} from '@stackops/lib-common/openstack';
import { type StepResult, stop } from '@stackops/lib-common/pipeline';
import { HASH_DBSYNC } from '../../api/constants.js';
import { dbSyncJob } from '../../resources/db-sync-job.js';
import { childNames } from '../../resources/names.js';
import { apiImage, type PlacementApiPass } from '../context.js';

/**
 * The hash-gated `<name>-db-sync` Job (placement-manage db sync): runs when its pod spec changed
 * since the last success, which is recorded in `status.hash.dbsync`. A Topology's placement goes on its pod.
 */
export async function runDbSync(ctx: PlacementApiPass): Promise<StepResult> {
  const { cr } = ctx;
  const job = withPodPlacement(dbSyncJob(cr, apiImage(ctx), ctx.podAnnotations) as JobObject, ctx.topology);
  const recorded = ctx.status.hash[HASH_DBSYNC];
  // The Deployment is the previous operator's until ensureDeployment, which runs after db-sync.
  const deployment = ctx.cache.get(Kinds.Deployment, {
    name: childNames(cr.metadata.name!).deployment,
    namespace: cr.metadata.namespace!,
  });
  const adopted = adoptJobRun(ctx, recorded, job, deployment, ConditionType.DBSyncReady);
  if (adopted) {
    ctx.status.hash[HASH_DBSYNC] = adopted;
    return undefined;
  }
  let result: Awaited<ReturnType<typeof runHashGatedJob>>;
  try {
    result = await runHashGatedJob(ctx.client, cr, job, {
      previousHash: recorded,
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
  if (result.state === 'succeeded' && !result.changed)
    keepAdoptedMessage(ctx, ctx.previousStatus, ConditionType.DBSyncReady);
  if (result.state !== 'succeeded') return stop();
  if (result.hashToRecord) ctx.status.hash[HASH_DBSYNC] = result.hashToRecord;
  return undefined;
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
