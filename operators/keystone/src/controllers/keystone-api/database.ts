import {
  buildDbCreateJob,
  DEFAULT_DB_PORT,
  databaseHostname,
  dbCreateJobName,
  setDbReadyCondition,
} from '@stackops/lib-common/database';
import {
  type JobObject,
  Kinds,
  type KubeObject,
  runHashGatedJob,
  stableHash,
} from '@stackops/lib-common/resources';
import { KEYSTONE_DATABASE, keystoneServiceLabels } from '../../resources/names.js';
import { databaseUser } from '../../resources/spec.js';
import { REQUEUE_SHORT_MS, type StepContext, type StepResult, stop } from './context.js';

/** `status.hash` key of the db-create Job. */
export const DB_CREATE_HASH = 'dbcreate';

function servicePort(svc: KubeObject): number {
  const ports = (svc['spec'] as { ports?: { port: number }[] } | undefined)?.ports ?? [];
  return ports[0]?.port ?? DEFAULT_DB_PORT;
}

/**
 * Step 2: the keystone database and account exist on the MariaDB Service `databaseInstance`
 * (ADR 0005): the hash-gated `<cr>-db-create` Job runs the idempotent SQL whenever its inputs
 * (names, server, password hashes) changed since the last success.
 */
export async function ensureDatabase(ctx: StepContext): Promise<StepResult> {
  const ns = ctx.cr.metadata.namespace ?? '';
  const instance = ctx.spec.databaseInstance;
  const svc = await ctx.reader.get(Kinds.Service, { name: instance, namespace: ns });
  if (!svc) {
    setDbReadyCondition(ctx.conditions, { state: 'waitingForService', service: instance });
    return stop(REQUEUE_SHORT_MS);
  }
  const secrets = ctx.secrets!;
  const job = buildDbCreateJob({
    name: dbCreateJobName(ctx.cr.metadata.name ?? ''),
    namespace: ns,
    grant: { database: KEYSTONE_DATABASE, account: databaseUser(ctx.spec) },
    instance,
    port: servicePort(svc),
    secret: ctx.spec.secret,
    passwordKey: ctx.spec.passwordSelectors.database,
    secretHash: stableHash([secrets.database, secrets.root]),
    labels: keystoneServiceLabels(ctx.cr),
    ...(ctx.images.mariadbClient ? { image: ctx.images.mariadbClient } : {}),
    ...(Object.keys(ctx.spec.nodeSelector).length > 0 ? { nodeSelector: ctx.spec.nodeSelector } : {}),
  }) as JobObject;
  const current =
    (await ctx.reader.get<JobObject>(Kinds.Job, { name: job.metadata.name ?? '', namespace: ns })) ?? null;
  const result = await runHashGatedJob(ctx.client, ctx.cr, job, {
    previousHash: ctx.status.hash[DB_CREATE_HASH],
    preserveJobs: ctx.spec.preserveJobs,
    current,
  });
  if (result.state === 'running') {
    setDbReadyCondition(ctx.conditions, { state: 'running' });
    return stop(REQUEUE_SHORT_MS);
  }
  if (result.state === 'failed') {
    setDbReadyCondition(ctx.conditions, { state: 'failed', message: result.message ?? 'Job failed' });
    return stop();
  }
  if (result.hashToRecord) ctx.status.hash[DB_CREATE_HASH] = result.hashToRecord;
  ctx.status.databaseHostname = databaseHostname(instance, ns);
  setDbReadyCondition(ctx.conditions, { state: 'completed' });
  return undefined;
}
