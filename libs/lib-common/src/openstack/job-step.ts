import { Kinds } from '../client/kinds.js';
import type { KubeObject } from '../client/types.js';
import type { Pass } from '../pipeline/pipeline.js';
import { type StepResult, stop } from '../pipeline/step.js';
import { adoptJobRun, keepAdoptedMessage } from './job-adoption.js';
import { type JobObject, markJobCondition, runHashGatedJob } from './jobs.js';

/** A pass whose status records its Jobs' hashes (`status.hash`, upstream's field). */
type JobPass = Pass<
  KubeObject,
  { hash: Record<string, string>; conditions?: readonly { type: string; status: string; message?: string }[] }
>;

/**
 * One hash-gated Job step of an API's pass (keystone's db-sync and bootstrap, placement's db-sync):
 * the previous operator's proven run adopted (ADR 0048), else the Job run when its pod spec changed;
 * the outcome on `condition`. A running or failed Job ends the pass (the Job is owned and watched:
 * its outcome brings the next); a success records its hash under `status.hash[hashKey]`.
 */
export async function runJobStep(
  ctx: JobPass,
  job: JobObject,
  opts: { hashKey: string; condition: string; apiDeployment: string; preserveJobs: boolean | undefined },
): Promise<StepResult> {
  const namespace = ctx.cr.metadata.namespace ?? '';
  const recorded = ctx.status.hash[opts.hashKey];
  // The API Deployment is the previous operator's until the Deployment step, which runs after the Jobs.
  const deployment = ctx.cache.get(Kinds.Deployment, { name: opts.apiDeployment, namespace });
  const adopted = adoptJobRun(ctx, recorded, job, deployment, opts.condition);
  if (adopted) {
    ctx.status.hash[opts.hashKey] = adopted;
    return undefined;
  }
  const result = await runHashGatedJob(ctx.client, ctx.cr, job, {
    previousHash: recorded,
    preserveJobs: opts.preserveJobs,
    current: ctx.cache.get<JobObject>(Kinds.Job, { name: job.metadata.name ?? '', namespace }) ?? null,
  });
  markJobCondition(ctx.conditions, opts.condition, result);
  if (result.state === 'succeeded' && !result.changed)
    keepAdoptedMessage(ctx, ctx.previousStatus, opts.condition);
  if (result.state !== 'succeeded') return stop();
  if (result.hashToRecord) ctx.status.hash[opts.hashKey] = result.hashToRecord;
  return undefined;
}
