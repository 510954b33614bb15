import { Kinds, type KubeObject } from '@stackops/lib-common/client';
import {
  buildDbCreateJob,
  DEFAULT_DB_PORT,
  databaseHostname,
  dbCreateJobName,
  setDbReadyCondition,
} from '@stackops/lib-common/database';
import { stableHash } from '@stackops/lib-common/objects';
import { type JobObject, runHashGatedJob } from '@stackops/lib-common/openstack';
import { type StepResult, stop } from '@stackops/lib-common/pipeline';
import { databaseUser } from '../../../config/spec.js';
import { KEYSTONE_DATABASE, keystoneServiceLabels } from '../../../resources/names.js';
import { type KeystoneApiPass, RECHECK_AFTER_MS } from '../context.js';

/** `status.hash` key of the db-create Job. */
const DB_CREATE_HASH = 'dbcreate';

function servicePort(svc: KubeObject): number {
  const ports = (svc['spec'] as { ports?: { port: number }[] } | undefined)?.ports ?? [];
  return ports[0]?.port ?? DEFAULT_DB_PORT;
}

/**
 * The keystone database and account exist on the MariaDB Service `databaseInstance`
 * (ADR 0005): the hash-gated `<cr>-db-create` Job runs the idempotent SQL whenever its inputs
 * (names, server, password hashes) changed since the last success.
 */
export async function ensureDatabase(ctx: KeystoneApiPass): Promise<StepResult> {
  const ns = ctx.cr.metadata.namespace ?? '';
  const instance = ctx.spec.databaseInstance;
  const svc = ctx.cache.get(Kinds.Service, { name: instance, namespace: ns });
  if (!svc) {
    setDbReadyCondition(ctx.conditions, { state: 'waitingForService', service: instance });
    return stop(RECHECK_AFTER_MS);
  }
  const passwords = ctx.passwords!;
  const job = buildDbCreateJob({
    name: dbCreateJobName(ctx.cr.metadata.name ?? ''),
    namespace: ns,
    grant: { database: KEYSTONE_DATABASE, account: databaseUser(ctx.spec) },
    instance,
    port: servicePort(svc),
    secret: ctx.spec.secret,
    passwordKey: ctx.spec.passwordSelectors.database,
    secretHash: stableHash([passwords.database, passwords.root]),
    labels: keystoneServiceLabels(ctx.cr),
    image: ctx.defaults.mariadbImage,
    ...(Object.keys(ctx.spec.nodeSelector).length > 0 ? { nodeSelector: ctx.spec.nodeSelector } : {}),
  }) as JobObject;
  const current =
    ctx.cache.get<JobObject>(Kinds.Job, { name: job.metadata.name ?? '', namespace: ns }) ?? null;
  const result = await runHashGatedJob(ctx.client, ctx.cr, job, {
    previousHash: ctx.status.hash[DB_CREATE_HASH],
    preserveJobs: ctx.spec.preserveJobs,
    current,
  });
  if (result.state === 'running') {
    setDbReadyCondition(ctx.conditions, { state: 'running' });
    return stop(RECHECK_AFTER_MS);
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
