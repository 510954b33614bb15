import { apiVersionOf, Kinds, type KubeObject } from '@stackops/lib-common/client';
import {
  buildDbCreateJob,
  DEFAULT_DB_PORT,
  databaseHostname,
  dbCreateJobName,
  findGalera,
  isGaleraService,
  type MariaDbRequest,
  reconcileMariaDb,
  releaseMariaDbFinalizers,
  setDbReadyCondition,
} from '@stackops/lib-common/database';
import { stableHash } from '@stackops/lib-common/objects';
import { type JobObject, runHashGatedJob } from '@stackops/lib-common/openstack';
import { type StepResult, stop } from '@stackops/lib-common/pipeline';
import { KeystoneFinalizers } from '../../../api/finalizers.js';
import { KeystoneKinds } from '../../../api/group.js';
import { databaseUser } from '../../../config/spec.js';
import { KEYSTONE_DATABASE, keystoneServiceLabels } from '../../../resources/names.js';
import { type KeystoneApiPass, RECHECK_AFTER_MS } from '../context.js';

/** `status.hash` key of the db-create Job. */
const DB_CREATE_HASH = 'dbcreate';

function servicePort(svc: KubeObject): number {
  const ports = (svc['spec'] as { ports?: { port: number }[] } | undefined)?.ports ?? [];
  return ports[0]?.port ?? DEFAULT_DB_PORT;
}

/** Upstream keystone's MariaDBDatabase CR name and user name prefix. */
const KEYSTONE_DATABASE_CR = 'keystone';

/** What keystone asks mariadb-operator for (upstream keystone's names; no TLS required of the account). */
function mariaDbRequest(ctx: KeystoneApiPass): MariaDbRequest {
  const kind = KeystoneKinds.KeystoneAPI;
  return {
    owner: { ...ctx.cr, apiVersion: apiVersionOf(kind), kind: kind.kind },
    namespace: ctx.cr.metadata.namespace ?? '',
    instance: ctx.spec.databaseInstance,
    databaseName: KEYSTONE_DATABASE,
    databaseCrName: KEYSTONE_DATABASE_CR,
    accountName: ctx.spec.databaseAccount,
    userNamePrefix: 'keystone',
    requireTLS: false,
    finalizer: KeystoneFinalizers.KeystoneAPI,
    labels: {},
  };
}

/**
 * mariadb-operator mode (ADR 0013): MariaDBAccount and MariaDBDatabase CRs as upstream creates
 * them; the config then connects as the account, with its password from `<account>-db-secret`.
 */
async function ensureMariaDbDatabase(ctx: KeystoneApiPass): Promise<StepResult> {
  const outcome = await reconcileMariaDb(ctx.client, ctx.conditions, mariaDbRequest(ctx));
  if (!outcome.ready) return stop(outcome.retryAfterMs);
  const { hostname, user, password, tlsSupport } = outcome.connection;
  ctx.status.databaseHostname = hostname;
  ctx.passwords = { ...ctx.passwords!, database: password };
  ctx.databaseConnection = { user, tlsSupport };
  return undefined;
}

/** Deletion: keystone's finalizer leaves the MariaDB CRs (no-op in Job mode: there are none). */
export async function releaseDatabase(ctx: KeystoneApiPass): Promise<StepResult> {
  await releaseMariaDbFinalizers(ctx.client, mariaDbRequest(ctx));
  return undefined;
}

/**
 * The keystone database and account exist. When `databaseInstance` names a Galera CR,
 * mariadb-operator makes them (ADR 0013); otherwise it names a MariaDB Service and the hash-gated
 * `<cr>-db-create` Job runs the idempotent SQL whenever its inputs (names, server, password
 * hashes) changed since the last success (ADR 0005).
 */
export async function ensureDatabase(ctx: KeystoneApiPass): Promise<StepResult> {
  const ns = ctx.cr.metadata.namespace ?? '';
  const instance = ctx.spec.databaseInstance;
  const svc = ctx.cache.get(Kinds.Service, { name: instance, namespace: ns });
  if (isGaleraService(svc, instance) && (await findGalera(ctx, instance, ns))) {
    return ensureMariaDbDatabase(ctx);
  }
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
    // The account password may live in the generated account Secret; DbRootPassword stays in spec.secret.
    secret: ctx.databaseAccount?.secret ?? ctx.spec.secret,
    passwordKey: ctx.databaseAccount?.key ?? ctx.spec.passwordSelectors.database,
    rootSecret: ctx.spec.secret,
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
    // The Job is owned and watched: its outcome brings the next pass.
    return stop();
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
