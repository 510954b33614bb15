import { apiVersionOf, Kinds } from '@stackops/lib-common/client';
import { ConditionType } from '@stackops/lib-common/conditions';
import {
  accountSecretName,
  buildDbCreateJob,
  databaseHostname,
  dbCreateJobName,
  findGalera,
  isGaleraService,
  MARIADB_ACCOUNT_PASSWORD_KEY,
  type MariaDbRequest,
  reconcileMariaDb,
  releaseMariaDbFinalizers,
  setDbReadyCondition,
} from '@stackops/lib-common/database';
import { type JobObject, runHashGatedJob } from '@stackops/lib-common/openstack';
import { type StepResult, stop } from '@stackops/lib-common/pipeline';
import { PLACEMENT_API_FINALIZER, PLACEMENT_DATABASE_NAME } from '../../api/constants.js';
import { PlacementAPIKind } from '../../api/kinds.js';
import { placementServiceLabels } from '../../resources/names.js';
import { type PlacementApiPass, RECHECK_AFTER_MS } from '../context.js';
import { LEGACY_DATABASE_PASSWORD_KEY } from './ensure-database-account.js';

/** What placement asks mariadb-operator for (upstream placement's names). */
function mariaDbRequest(ctx: PlacementApiPass): MariaDbRequest {
  return {
    owner: { ...ctx.cr, apiVersion: apiVersionOf(PlacementAPIKind), kind: PlacementAPIKind.kind },
    namespace: ctx.cr.metadata.namespace ?? '',
    instance: ctx.cr.spec.databaseInstance,
    databaseName: PLACEMENT_DATABASE_NAME,
    databaseCrName: PLACEMENT_DATABASE_NAME,
    accountName: ctx.cr.spec.databaseAccount,
    userNamePrefix: 'placement',
    requireTLS: false,
    finalizer: PLACEMENT_API_FINALIZER,
    labels: {},
  };
}

/**
 * mariadb-operator mode: MariaDBAccount/MariaDBDatabase as upstream creates them; placement then
 * connects as the account with the password of its Secret (`<account>-db-secret`).
 */
async function ensureMariaDbDatabase(ctx: PlacementApiPass): Promise<StepResult> {
  const outcome = await reconcileMariaDb(ctx.client, ctx.conditions, mariaDbRequest(ctx));
  if (!outcome.ready) return stop(outcome.retryAfterMs);
  const { hostname, user, password, tlsSupport } = outcome.connection;
  ctx.status.databaseHostname = hostname;
  ctx.passwords = { service: ctx.passwords?.service ?? '', database: password };
  ctx.databaseAccount = {
    secret: accountSecretName(ctx.cr.spec.databaseAccount),
    key: MARIADB_ACCOUNT_PASSWORD_KEY,
  };
  ctx.databaseConnection = { user, tlsSupport };
  return undefined;
}

/** Deletion: placement's finalizer leaves the MariaDB CRs (nothing to do in Job mode). */
export async function releaseDatabase(ctx: PlacementApiPass): Promise<StepResult> {
  await releaseMariaDbFinalizers(ctx.client, mariaDbRequest(ctx));
  return undefined;
}

/** `status.hash` key of the db-create Job. */
const HASH_DBCREATE = 'dbcreate';

/**
 * The placement database and account. A `databaseInstance` naming a Galera CR: mariadb-operator
 * makes them (ADR 0013). Else it names a MariaDB Service and lib-common's hash-gated db-create Job
 * creates them; the Job runs again only when its pod spec changes: other instance or account, or
 * a database password change.
 */
export async function ensureDatabase(ctx: PlacementApiPass): Promise<StepResult> {
  const { cr } = ctx;
  const namespace = cr.metadata.namespace!;
  const instance = cr.spec.databaseInstance;
  const svc = ctx.cache.get(Kinds.Service, { name: instance, namespace });
  if (isGaleraService(svc, instance) && (await findGalera(ctx, instance, namespace))) {
    return ensureMariaDbDatabase(ctx);
  }
  if (!svc) {
    setDbReadyCondition(ctx.conditions, { state: 'waitingForService', service: instance });
    return stop(RECHECK_AFTER_MS);
  }
  const account = ctx.databaseAccount ?? { secret: cr.spec.secret, key: LEGACY_DATABASE_PASSWORD_KEY };
  // The Job object carries the service labels, its pod none (they must not match the API's selector).
  const job = buildDbCreateJob({
    name: dbCreateJobName(cr.metadata.name!),
    namespace,
    grant: { database: PLACEMENT_DATABASE_NAME, account: cr.spec.databaseAccount },
    instance,
    secret: account.secret,
    passwordKey: account.key,
    rootSecret: cr.spec.secret,
    secretHash: ctx.dbSecretHash ?? '',
    image: ctx.defaults.mariadbImage,
    labels: placementServiceLabels(cr.metadata.name!),
    ...(cr.spec.nodeSelector ? { nodeSelector: cr.spec.nodeSelector } : {}),
  }) as JobObject;
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
