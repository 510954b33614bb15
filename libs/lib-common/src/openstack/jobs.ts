import { isAlreadyExists } from '../client/errors.js';
import { isPlainObject } from '../client/json.js';
import { Kinds } from '../client/kinds.js';
import type { KubeClient, KubeObject } from '../client/types.js';
import type { Conditions } from '../conditions/conditions.js';
import { stableHash } from '../objects/hash.js';
import { withControllerReference } from '../objects/owner.js';
import { withPullPolicyDefaults } from './pod.js';

/** The annotation a Job carries with the hash of the pod spec it was created from. */
export const JOB_HASH_ANNOTATION = 'stackops.io/job-hash';
/** Upstream's default time a finished Job is kept before the TTL controller deletes it. */
export const DEFAULT_JOB_TTL_SECONDS = 600;

export interface JobObject extends KubeObject {
  spec?: {
    template?: { metadata?: Record<string, unknown>; spec?: Record<string, unknown> };
    backoffLimit?: number;
    ttlSecondsAfterFinished?: number | null;
    [key: string]: unknown;
  };
  status?: {
    active?: number;
    succeeded?: number;
    failed?: number;
    conditions?: { type: string; status: string }[];
  };
}

/** Where a hash-gated Job stands. */
export type JobState = 'succeeded' | 'running' | 'failed';

/** What the runner has to do about the live Job. */
export type JobAction =
  | { do: 'nothing'; state: JobState; message?: string }
  | { do: 'create'; state: 'running' }
  | { do: 'delete'; state: 'running'; why: string }
  | { do: 'patch-ttl'; state: 'succeeded'; ttl: number | null };

/** The hash of a Job: its pod spec only (labels the Job controller adds must not change it). */
export function jobHash(job: JobObject): string {
  const spec = job.spec?.template?.spec;
  return stableHash(isPlainObject(spec) ? withPullPolicyDefaults(spec) : {});
}

function hasCondition(job: JobObject, type: string): boolean {
  return job.status?.conditions?.some((c) => c.type === type && c.status === 'True') ?? false;
}

/**
 * The decision table of the hash-gated Job runner (upstream `DoJob`; the table is in the README):
 * - hash unchanged since the last success: nothing to run; an existing Job only gets its TTL
 *   brought in line (it may have been TTL-deleted already, which is fine);
 * - changed, no Job: create it;
 * - changed, Job from another hash: let a running one finish, then delete it and create anew;
 * - changed, Job of this hash: running while active, succeeded once it completed, failed when it
 *   failed (terminally when its backoff limit is reached).
 */
export function decideJobAction(input: {
  hash: string;
  previousHash: string | undefined;
  existing: JobObject | null;
  ttl: number | null;
}): JobAction {
  const { hash, previousHash, existing, ttl } = input;
  if (previousHash === hash) {
    if (existing && (existing.spec?.ttlSecondsAfterFinished ?? null) !== ttl)
      return { do: 'patch-ttl', state: 'succeeded', ttl };
    return { do: 'nothing', state: 'succeeded' };
  }
  if (!existing) return { do: 'create', state: 'running' };
  if (existing.metadata.deletionTimestamp) return { do: 'nothing', state: 'running' };
  const sameHash = existing.metadata.annotations?.[JOB_HASH_ANNOTATION] === hash;
  const status = existing.status ?? {};
  const complete = hasCondition(existing, 'Complete') || (status.succeeded ?? 0) > 0;
  const failedFinally = hasCondition(existing, 'Failed');
  const active = (status.active ?? 0) > 0;
  if (!sameHash) {
    // An outdated run is let finish (a half-done migration is worse than a late one), then replaced.
    if (active && !complete && !failedFinally) return { do: 'nothing', state: 'running' };
    return { do: 'delete', state: 'running', why: 'the Job was created from another pod spec' };
  }
  if (complete) return { do: 'nothing', state: 'succeeded' };
  if (failedFinally) {
    return {
      do: 'nothing',
      state: 'failed',
      message: 'Job has reached the specified backoff limit. Check job logs',
    };
  }
  if (active) return { do: 'nothing', state: 'running' };
  const failed = status.failed ?? 0;
  if (failed > 0)
    return { do: 'nothing', state: 'failed', message: `Job Attempt #${failed} Failed. Check job logs` };
  return { do: 'nothing', state: 'running' };
}

export interface HashGatedJobOptions {
  /** The hash recorded in the owner's status (`status.hash[<jobType>]`) after the last success. */
  previousHash: string | undefined;
  /** Keep finished Jobs (no TTL). */
  preserveJobs?: boolean;
  /** Seconds a finished Job is kept unless preserved (default: the Job's own, else 600). */
  ttlSecondsAfterFinished?: number;
  /** The live Job as the caller knows it (informer cache); `null` = absent; `undefined` = read it. */
  current?: JobObject | null;
}

export interface HashGatedJobResult {
  state: JobState;
  /** The pod-spec hash of the desired Job. */
  hash: string;
  /** Whether the hash differs from `previousHash` (the Job had to run). */
  changed: boolean;
  /** Set only when the Job succeeded for a new hash: store it as `status.hash[<jobType>]`. */
  hashToRecord?: string;
  /** For `failed`: why, for the condition message. */
  message?: string;
}

/**
 * Runs `job` (a complete Job; name and namespace set) when its pod spec hash differs from the
 * hash recorded after the last success. The caller maps the result onto its condition
 * (`markJobCondition`) and records `hashToRecord` in status — only after success, so a failed
 * or interrupted run is retried and an unchanged spec never runs twice.
 */
export async function runHashGatedJob(
  client: KubeClient,
  owner: KubeObject,
  job: JobObject,
  opts: HashGatedJobOptions,
): Promise<HashGatedJobResult> {
  const hash = jobHash(job);
  const ttl = opts.preserveJobs
    ? null
    : (opts.ttlSecondsAfterFinished ?? job.spec?.ttlSecondsAfterFinished ?? DEFAULT_JOB_TTL_SECONDS);
  const ref = {
    name: job.metadata.name ?? '',
    namespace: job.metadata.namespace ?? owner.metadata.namespace,
  };
  const existing =
    opts.current !== undefined ? opts.current : ((await client.get<JobObject>(Kinds.Job, ref)) ?? null);
  const action = decideJobAction({ hash, previousHash: opts.previousHash, existing, ttl });
  const changed = opts.previousHash !== hash;
  switch (action.do) {
    case 'create': {
      const desired = withControllerReference(owner, Kinds.Job, {
        ...job,
        apiVersion: 'batch/v1',
        kind: 'Job',
        metadata: {
          ...job.metadata,
          annotations: { ...job.metadata.annotations, [JOB_HASH_ANNOTATION]: hash },
        },
        spec: { ...job.spec, ttlSecondsAfterFinished: ttl ?? undefined },
      });
      try {
        await client.create(Kinds.Job, desired);
      } catch (err) {
        // The cache lagged behind a Job created a moment ago: the next reconcile sees it.
        if (!isAlreadyExists(err)) throw err;
      }
      break;
    }
    case 'delete':
      await client.delete(Kinds.Job, ref, { propagationPolicy: 'Background' });
      break;
    case 'patch-ttl':
      await client.patch(Kinds.Job, ref, { spec: { ttlSecondsAfterFinished: action.ttl } }, 'merge');
      break;
    case 'nothing':
      break;
  }
  const result: HashGatedJobResult = { state: action.state, hash, changed };
  if (action.state === 'succeeded' && changed) result.hashToRecord = hash;
  if (action.do === 'nothing' && action.message) result.message = action.message;
  return result;
}

/**
 * Upstream's mapping of a Job result onto its condition: running → False/Requested/Info with the
 * type's running message; failed → False/Error/Warning with its error message; succeeded → True.
 */
export function markJobCondition(
  conditions: Conditions,
  type: string,
  result: HashGatedJobResult,
): Conditions {
  if (result.state === 'running') return conditions.markRequested(type);
  if (result.state === 'failed') return conditions.markError(type, result.message ?? 'Job failed');
  return conditions.markTrue(type);
}
