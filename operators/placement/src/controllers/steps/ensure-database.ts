import { Kinds } from '@stackops/lib-common/client';
import { ConditionType } from '@stackops/lib-common/conditions';
import {
  buildDbCreateJob,
  databaseHostname,
  dbCreateJobName,
  setDbReadyCondition,
} from '@stackops/lib-common/database';
import { type JobObject, runHashGatedJob } from '@stackops/lib-common/openstack';
import { type StepResult, stop } from '@stackops/lib-common/pipeline';
import { PLACEMENT_DATABASE_NAME } from '../../api/constants.js';
import { placementServiceLabels } from '../../resources/names.js';
import { type PlacementApiPass, RECHECK_AFTER_MS } from '../context.js';
import { LEGACY_DATABASE_PASSWORD_KEY } from './ensure-database-account.js';

type Json = Record<string, unknown>;

/**
 * The root password always comes from `spec.secret`, while the account password may live in the
 * generated account Secret. (Stop-gap until buildDbCreateJob takes a separate root Secret.)
 */
function withRootPasswordFrom(job: JobObject, rootSecret: string): JobObject {
  const spec = job.spec as { template: { spec: { containers: Json[] } } };
  for (const c of spec.template.spec.containers) {
    for (const e of (c['env'] ?? []) as Json[]) {
      const ref = (e['valueFrom'] as { secretKeyRef?: { name: string } } | undefined)?.secretKeyRef;
      if (e['name'] === 'DB_ROOT_PASSWORD' && ref) ref.name = rootSecret;
    }
  }
  return job;
}

/** The service labels stay on the Job: its pods must not match `service=placement` (API pods only). */
function withoutPodLabels(job: JobObject): JobObject {
  const template = (job.spec as { template: { metadata?: Json } }).template;
  if (template.metadata) delete template.metadata['labels'];
  return job;
}

/** `status.hash` key of the db-create Job. */
const HASH_DBCREATE = 'dbcreate';

/**
 * The placement database and account, created by lib-common's hash-gated db-create Job against the
 * MariaDB Service named by `databaseInstance` (upstream: MariaDBDatabase/MariaDBAccount). The Job
 * runs again only when its pod spec changes: other instance or account, or a database password change.
 */
export async function ensureDatabase(ctx: PlacementApiPass): Promise<StepResult> {
  const { cr } = ctx;
  const namespace = cr.metadata.namespace!;
  const instance = cr.spec.databaseInstance;
  if (!ctx.cache.get(Kinds.Service, { name: instance, namespace })) {
    setDbReadyCondition(ctx.conditions, { state: 'waitingForService', service: instance });
    return stop(RECHECK_AFTER_MS);
  }
  const account = ctx.databaseAccount ?? { secret: cr.spec.secret, key: LEGACY_DATABASE_PASSWORD_KEY };
  const job = withoutPodLabels(
    withRootPasswordFrom(
      buildDbCreateJob({
        name: dbCreateJobName(cr.metadata.name!),
        namespace,
        grant: { database: PLACEMENT_DATABASE_NAME, account: cr.spec.databaseAccount },
        instance,
        secret: account.secret,
        passwordKey: account.key,
        secretHash: ctx.dbSecretHash ?? '',
        image: ctx.defaults.mariadbImage,
        labels: placementServiceLabels(cr.metadata.name!),
        ...(cr.spec.nodeSelector ? { nodeSelector: cr.spec.nodeSelector } : {}),
      }) as JobObject,
      cr.spec.secret,
    ),
  );
  let result: Awaited<ReturnType<typeof runHashGatedJob>>;
  try {
    result = await runHashGatedJob(ctx.client, cr, job, {
      previousHash: ctx.status.hash[HASH_DBCREATE],
      preserveJobs: cr.spec.preserveJobs,
      current: ctx.cache.get<JobObject>(Kinds.Job, { name: job.metadata.name!, namespace }) ?? null,
    });
  } catch (err) {
    ctx.conditions.markError(ConditionType.DBReady, err instanceof Error ? err.message : String(err));
    throw err;
  }
  if (result.state === 'running') {
    setDbReadyCondition(ctx.conditions, { state: 'running' });
    return stop();
  }
  if (result.state === 'failed') {
    setDbReadyCondition(ctx.conditions, { state: 'failed', message: result.message ?? 'Job failed' });
    return stop();
  }
  if (result.hashToRecord) ctx.status.hash[HASH_DBCREATE] = result.hashToRecord;
  ctx.status.databaseHostname = databaseHostname(instance, namespace);
  setDbReadyCondition(ctx.conditions, { state: 'completed' });
  return undefined;
}
