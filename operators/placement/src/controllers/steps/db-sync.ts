import { ConditionType } from '@stackops/lib-common/conditions';
import { type JobObject, Kinds, markJobCondition, runHashGatedJob } from '@stackops/lib-common/resources';
import { HASH_DBSYNC } from '../../api/constants.js';
import { dbSyncJob } from '../../resources/db-sync-job.js';
import { apiImage, type ReconcileState, type StepIo, type StepResult, stop } from '../state.js';

/**
 * The hash-gated `<name>-db-sync` Job (placement-manage db sync): runs when its pod spec changed
 * since the last success, which is recorded in `status.hash.dbsync`.
 */
export async function reconcileDbSync(s: ReconcileState, io: StepIo): Promise<StepResult> {
  const { cr } = s;
  const job = dbSyncJob(cr, apiImage(s), s.podAnnotations) as JobObject;
  let result: Awaited<ReturnType<typeof runHashGatedJob>>;
  try {
    result = await runHashGatedJob(io.client, cr, job, {
      previousHash: cr.status?.hash?.[HASH_DBSYNC],
      preserveJobs: cr.spec.preserveJobs,
      current:
        io.cache.get<JobObject>(Kinds.Job, { name: job.metadata.name!, namespace: cr.metadata.namespace! }) ??
        null,
    });
  } catch (err) {
    s.conditions.markError(ConditionType.DBSyncReady, err instanceof Error ? err.message : String(err));
    throw err;
  }
  markJobCondition(s.conditions, ConditionType.DBSyncReady, result);
  if (result.state !== 'succeeded') return stop();
  if (result.hashToRecord) s.status.hash[HASH_DBSYNC] = result.hashToRecord;
  return undefined;
}
