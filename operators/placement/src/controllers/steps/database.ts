import { ConditionType } from '@stackops/lib-common/conditions';
import {
  buildDbCreateJob,
  databaseHostname,
  dbCreateJobName,
  setDbReadyCondition,
} from '@stackops/lib-common/database';
import { type JobObject, Kinds, runHashGatedJob } from '@stackops/lib-common/resources';
import { PLACEMENT_DATABASE_NAME } from '../../api/constants.js';
import { serviceLabels } from '../../resources/names.js';
import { REQUEUE_MISSING_MS, type ReconcileState, type StepIo, type StepResult, stop } from '../state.js';

/** `status.hash` key of the db-create Job. */
export const HASH_DBCREATE = 'dbcreate';

/**
 * The placement database and account, created by lib-common's hash-gated db-create Job against the
 * MariaDB Service named by `databaseInstance` (upstream: MariaDBDatabase/MariaDBAccount). The Job
 * runs again only when its pod spec changes: other instance or account, or a database password change.
 */
export async function reconcileDatabase(s: ReconcileState, io: StepIo): Promise<StepResult> {
  const { cr } = s;
  const namespace = cr.metadata.namespace!;
  const instance = cr.spec.databaseInstance;
  if (!io.cache.get(Kinds.Service, { name: instance, namespace })) {
    setDbReadyCondition(s.conditions, { state: 'waitingForService', service: instance });
    return stop(REQUEUE_MISSING_MS);
  }
  const job = buildDbCreateJob({
    name: dbCreateJobName(cr.metadata.name!),
    namespace,
    grant: { database: PLACEMENT_DATABASE_NAME, account: cr.spec.databaseAccount },
    instance,
    secret: cr.spec.secret,
    passwordKey: cr.spec.passwordSelectors.database,
    secretHash: s.dbSecretHash ?? '',
    image: s.defaults.mariadbImage,
    labels: serviceLabels(cr.metadata.name!),
    ...(cr.spec.nodeSelector ? { nodeSelector: cr.spec.nodeSelector } : {}),
  }) as JobObject;
  let result: Awaited<ReturnType<typeof runHashGatedJob>>;
  try {
    result = await runHashGatedJob(io.client, cr, job, {
      previousHash: cr.status?.hash?.[HASH_DBCREATE],
      preserveJobs: cr.spec.preserveJobs,
      current: io.cache.get<JobObject>(Kinds.Job, { name: job.metadata.name!, namespace }) ?? null,
    });
  } catch (err) {
    s.conditions.markError(ConditionType.DBReady, err instanceof Error ? err.message : String(err));
    throw err;
  }
  if (result.state === 'running') {
    setDbReadyCondition(s.conditions, { state: 'running' });
    return stop();
  }
  if (result.state === 'failed') {
    setDbReadyCondition(s.conditions, { state: 'failed', message: result.message ?? 'Job failed' });
    return stop();
  }
  if (result.hashToRecord) s.status.hash[HASH_DBCREATE] = result.hashToRecord;
  s.status.databaseHostname = databaseHostname(instance, namespace);
  setDbReadyCondition(s.conditions, { state: 'completed' });
  return undefined;
}
