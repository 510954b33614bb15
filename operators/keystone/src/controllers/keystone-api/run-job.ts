import { Kinds } from '@stackops/lib-common/client';
import {
  type JobObject,
  markJobCondition,
  runHashGatedJob,
  withPodPlacement,
} from '@stackops/lib-common/openstack';
import { type StepResult, stop } from '@stackops/lib-common/pipeline';
import type { JobInput } from '../../resources/jobs.js';
import { type KeystoneApiPass, specForPods } from './context.js';

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
export async function runKeystoneJob(
  ctx: KeystoneApiPass,
  unplaced: JobObject,
  opts: { hashKey: string; condition: string },
): Promise<StepResult> {
  const job = withPodPlacement(unplaced, ctx.topology);
  const ref = { name: job.metadata.name ?? '', namespace: ctx.cr.metadata.namespace ?? '' };
  const result = await runHashGatedJob(ctx.client, ctx.cr, job, {
    previousHash: ctx.status.hash[opts.hashKey],
    preserveJobs: ctx.spec.preserveJobs,
    current: ctx.cache.get<JobObject>(Kinds.Job, ref) ?? null,
  });
  markJobCondition(ctx.conditions, opts.condition, result);
  // The Job is owned and watched: its outcome brings the next pass (no timed recheck meanwhile).
  if (result.state === 'running') return stop();
  if (result.state === 'failed') return stop();
  if (result.hashToRecord) ctx.status.hash[opts.hashKey] = result.hashToRecord;
  return undefined;
}
