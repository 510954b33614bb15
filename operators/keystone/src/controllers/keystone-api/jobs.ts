import { ConditionType } from '@stackops/lib-common/conditions';
import { type JobObject, Kinds, markJobCondition, runHashGatedJob } from '@stackops/lib-common/resources';
import { buildBootstrapJob, buildDbSyncJob, type JobContext } from '../../resources/jobs.js';
import { REQUEUE_SHORT_MS, type StepContext, type StepResult, stop } from './context.js';

/** `status.hash` keys of the Jobs (upstream's names). */
export const DB_SYNC_HASH = 'dbsync';
export const BOOTSTRAP_HASH = 'bootstrap';

async function runJob(
  ctx: StepContext,
  job: JobObject,
  hashKey: string,
  condition: string,
): Promise<StepResult> {
  const ref = { name: job.metadata.name ?? '', namespace: ctx.cr.metadata.namespace ?? '' };
  const current = (await ctx.reader.get<JobObject>(Kinds.Job, ref)) ?? null;
  const result = await runHashGatedJob(ctx.client, ctx.cr, job, {
    previousHash: ctx.status.hash[hashKey],
    preserveJobs: ctx.spec.preserveJobs,
    current,
  });
  markJobCondition(ctx.conditions, condition, result);
  if (result.state === 'running') return stop(REQUEUE_SHORT_MS);
  if (result.state === 'failed') return stop();
  if (result.hashToRecord) ctx.status.hash[hashKey] = result.hashToRecord;
  return undefined;
}

const jobContext = (ctx: StepContext): JobContext => ({
  cr: ctx.cr,
  spec: ctx.spec,
  podAnnotations: ctx.podAnnotations ?? {},
});

/** Step 9: `keystone-db-sync` runs `keystone-manage db_sync` once per pod-spec hash. */
export function runDbSync(ctx: StepContext): Promise<StepResult> {
  return runJob(ctx, buildDbSyncJob(jobContext(ctx)), DB_SYNC_HASH, ConditionType.DBSyncReady);
}

/** Step 11: `keystone-bootstrap` registers admin and keystone's endpoints; new URLs re-run it. */
export function runBootstrap(ctx: StepContext): Promise<StepResult> {
  const endpoints = {
    internal: ctx.status.apiEndpoints['internal'] ?? '',
    public: ctx.status.apiEndpoints['public'] ?? '',
  };
  return runJob(
    ctx,
    buildBootstrapJob(jobContext(ctx), endpoints),
    BOOTSTRAP_HASH,
    ConditionType.BootstrapReady,
  );
}
