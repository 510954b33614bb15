import { randomBytes } from 'node:crypto';
import { type KindRef, Kinds } from '../client/kinds.js';
import type { KubeClient, KubeObject } from '../client/types.js';
import { ConditionType } from '../conditions/catalog.js';
import type { Conditions } from '../conditions/conditions.js';
import { ExternalKinds, type Galera, type MariaDBAccount, type MariaDBDatabase } from '../external/index.js';
import { controllerOf, controllerReference } from '../objects/owner.js';
import { holdFinalizer, releaseFinalizer } from '../runtime/finalizer.js';
import { readExternal } from '../runtime/optional-watch.js';

/**
 * The mariadb-operator mode of a service's database step (ADR 0013): the service CR asks
 * mariadb-operator for its database and account through MariaDBDatabase/MariaDBAccount CRs, as
 * upstream's services do, instead of running the db-create Job of ADR 0005.
 */

/** Key of the account password in the account's Secret (mariadb-operator's). */
export const MARIADB_ACCOUNT_PASSWORD_KEY = 'DatabasePassword';
/** Status condition mariadb-operator sets on a MariaDBDatabase once the schema exists. */
const DATABASE_READY = 'MariaDBDatabaseReady';
/** How long upstream waits before looking at the MariaDB CRs again (they are not watched). */
export const MARIADB_RECHECK_MS = 5_000;
/** …and at the database Service, which comes later than the Galera CR. */
const SERVICE_RECHECK_MS = 10_000;

/** The Secret mariadb-operator reads an account's password from. */
export const accountSecretName = (account: string): string => `${account}-db-secret`;

/** The labels mariadb-operator puts on the Service of the Galera CR `instance`. */
const galeraServiceLabels = (instance: string) => ({ app: 'mariadb', cr: `mariadb-${instance}` });

/**
 * Whether a Service is the one mariadb-operator runs for the Galera CR `instance`. Callers look
 * for the Galera CR only then: the Service is in their cache anyway, so a namespace without
 * mariadb-operator costs no request per reconcile (a GET of an unserved kind is a 404 each time).
 */
export function isGaleraService(svc: KubeObject | undefined, instance: string): boolean {
  const labels = svc?.metadata.labels ?? {};
  return Object.entries(galeraServiceLabels(instance)).every(([k, v]) => labels[k] === v);
}

/**
 * The Galera CR `name`, or undefined (also when mariadb-operator's CRDs are not installed). Given a
 * reconcile context (`{ client, cache }`), a Galera the controller's optional watch holds costs no
 * request; "not known yet" and "none" are asked of the API server, since "no Galera" switches the
 * namespace to Job mode. Given a bare client, always a GET.
 */
export async function findGalera(
  from: KubeClient | { client: KubeClient; cache: object },
  name: string,
  namespace: string,
): Promise<Galera | undefined> {
  const ref = { name, namespace };
  if ('get' in from) return from.get<Galera & KubeObject>(ExternalKinds.Galera, ref);
  const watched = await readExternal<Galera & KubeObject>(from, ExternalKinds.Galera, ref);
  // A Galera created a moment before its KeystoneAPI may not have reached the watch yet, and
  // "none" means Job mode (a db-create Job that stays): the watch's "none" is confirmed by a GET.
  return watched ?? from.client.get<Galera & KubeObject>(ExternalKinds.Galera, ref);
}

export interface MariaDbRequest {
  /** The service CR (apiVersion, kind, name, uid): controller of the CRs and Secret, finalizer holder. */
  owner: KubeObject;
  namespace: string;
  /** The Galera CR name (`databaseInstance`). */
  instance: string;
  /** The schema name (`keystone`, `placement`). */
  databaseName: string;
  /** The MariaDBDatabase CR name (upstream: the service name). */
  databaseCrName: string;
  /** The MariaDBAccount CR name (`databaseAccount`). */
  accountName: string;
  /** Generated user names are `<prefix>_<4 hex>`. */
  userNamePrefix: string;
  requireTLS: boolean;
  /** The service CR's finalizer, put on both CRs and removed by `releaseMariaDbFinalizers`. */
  finalizer: string;
  /** Labels for the MariaDBDatabase besides `dbName`. */
  labels: Record<string, string>;
}

/** What the service's config needs once mariadb-operator has done its part. */
export interface MariaDbConnection {
  hostname: string;
  user: string;
  password: string;
  /** The database reports TLS support: the client config then turns TLS on. */
  tlsSupport: boolean;
}

type Cond = { type: string; status: string };
const isTrue = (obj: { status?: { conditions?: Cond[] } } | undefined, type: string): boolean =>
  obj?.status?.conditions?.some((c) => c.type === type && c.status === 'True') ?? false;

/**
 * A merge patch of `metadata` that adds what is missing (labels, controller), or undefined. The
 * finalizer is held apart (`holdFinalizer`): mariadb-operator writes these CRs' status, which a
 * patch pinned to the resourceVersion would conflict with every time.
 */
function metadataPatch(obj: KubeObject, owner: KubeObject, labels: Record<string, string>) {
  const meta: Record<string, unknown> = {};
  const current = obj.metadata.labels ?? {};
  if (Object.entries(labels).some(([k, v]) => current[k] !== v)) meta['labels'] = labels;
  if (!controllerOf(obj)) {
    // A list replaces the whole: the resourceVersion makes a concurrent change a conflict, not a lost update.
    meta['ownerReferences'] = [...(obj.metadata.ownerReferences ?? []), controllerReference(owner)];
    meta['resourceVersion'] = obj.metadata.resourceVersion;
  }
  return Object.keys(meta).length === 0 ? undefined : { metadata: meta };
}

const decode = (v: string | undefined): string | undefined =>
  v === undefined ? undefined : Buffer.from(v, 'base64').toString('utf8');

/**
 * Upstream's `EnsureMariaDBAccount`: the account CR (created with a generated user name and
 * `<account>-db-secret`; `requireTLS` kept in step) and its Secret (created with a random
 * password, made immutable), both controlled by the service CR, the account with its finalizer.
 * Throws with a message fit for a condition (no secret value in it).
 */
export async function ensureMariaDbAccount(
  client: KubeClient,
  req: MariaDbRequest,
): Promise<{ account: MariaDBAccount & KubeObject; password: string }> {
  const ref = { name: req.accountName, namespace: req.namespace };
  let account = await client.get<MariaDBAccount & KubeObject>(ExternalKinds.MariaDBAccount, ref);
  if (!account) {
    account = await client.create<MariaDBAccount & KubeObject>(ExternalKinds.MariaDBAccount, {
      apiVersion: 'mariadb.openstack.org/v1beta1',
      kind: 'MariaDBAccount',
      metadata: {
        ...ref,
        ownerReferences: [controllerReference(req.owner)],
        finalizers: [req.finalizer],
      },
      spec: {
        userName: `${req.userNamePrefix.replaceAll('-', '_')}_${randomBytes(2).toString('hex')}`,
        secret: accountSecretName(req.accountName),
        requireTLS: req.requireTLS,
        accountType: 'User',
      },
    });
  } else {
    const spec = account.spec;
    const specPatch: Record<string, unknown> = {};
    if ((spec?.requireTLS ?? false) !== req.requireTLS) specPatch['requireTLS'] = req.requireTLS;
    if (!spec?.secret) specPatch['secret'] = accountSecretName(req.accountName);
    account = (await holdFinalizer(client, ExternalKinds.MariaDBAccount, account, req.finalizer)) ?? account;
    const meta = metadataPatch(account, req.owner, {});
    if (meta || Object.keys(specPatch).length > 0) {
      account = await client.patch<MariaDBAccount & KubeObject>(
        ExternalKinds.MariaDBAccount,
        ref,
        { ...(meta ?? { metadata: { resourceVersion: account.metadata.resourceVersion } }), spec: specPatch },
        'merge',
      );
    }
  }
  const secretName = account.spec?.secret ?? accountSecretName(req.accountName);
  if (!account.spec?.userName) throw new Error(`no userName field in account ${req.accountName}`);
  const secretRef = { name: secretName, namespace: req.namespace };
  type Secret = KubeObject & {
    data?: Record<string, string>;
    stringData?: Record<string, string>;
    immutable?: boolean;
  };
  let secret = await client.get<Secret>(Kinds.Secret, secretRef);
  if (!secret) {
    secret = await client.create<Secret>(Kinds.Secret, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { ...secretRef, ownerReferences: [controllerReference(req.owner)] },
      immutable: true,
      stringData: { [MARIADB_ACCOUNT_PASSWORD_KEY]: randomBytes(16).toString('hex') },
    } as Secret);
    // The API server returns what it stored: `data`, base64-encoded.
  } else if (!secret.immutable || !controllerOf(secret)) {
    const patch: Record<string, unknown> = { immutable: true };
    if (!controllerOf(secret)) {
      patch['metadata'] = {
        ownerReferences: [...(secret.metadata.ownerReferences ?? []), controllerReference(req.owner)],
      };
    }
    secret = await client.patch<Secret>(Kinds.Secret, secretRef, patch, 'merge');
  }
  // Either field, as upstream checks: a client may have written stringData the server did not fold yet.
  const password =
    secret.stringData?.[MARIADB_ACCOUNT_PASSWORD_KEY] ?? decode(secret.data?.[MARIADB_ACCOUNT_PASSWORD_KEY]);
  if (password === undefined) {
    throw new Error(`field ${MARIADB_ACCOUNT_PASSWORD_KEY} not found in Secret ${secretName}`);
  }
  return { account, password };
}

export type MariaDbDatabaseState =
  | { state: 'waiting'; retryAfterMs: number }
  | { state: 'ready'; hostname: string; tlsSupport: boolean };

/**
 * Upstream's `NewDatabaseForAccount(...).CreateOrPatchAll()` then `WaitForDBCreated()`: the
 * MariaDBDatabase `<databaseCrName>` (schema name, `dbName=<instance>` label, controller, finalizer),
 * the database Service found by mariadb-operator's labels, the account labelled with the database
 * and holding the finalizer; ready once both CRs report Ready conditions of their own. Every write
 * is followed by a wait, as upstream requeues after each create or patch.
 */
export async function ensureMariaDbDatabase(
  client: KubeClient,
  req: MariaDbRequest,
  account: MariaDBAccount & KubeObject,
): Promise<MariaDbDatabaseState> {
  const ref = { name: req.databaseCrName, namespace: req.namespace };
  const labels = { ...req.labels, dbName: req.instance };
  const db = await client.get<MariaDBDatabase & KubeObject>(ExternalKinds.MariaDBDatabase, ref);
  if (!db) {
    await client.create(ExternalKinds.MariaDBDatabase, {
      apiVersion: 'mariadb.openstack.org/v1beta1',
      kind: 'MariaDBDatabase',
      metadata: {
        ...ref,
        labels,
        ownerReferences: [controllerReference(req.owner)],
        finalizers: [req.finalizer],
      },
      spec: { name: req.databaseName },
    });
    return { state: 'waiting', retryAfterMs: MARIADB_RECHECK_MS };
  }
  const dbHeld = !db.metadata.finalizers?.includes(req.finalizer);
  const heldDb = dbHeld ? await holdFinalizer(client, ExternalKinds.MariaDBDatabase, db, req.finalizer) : db;
  const dbPatch = metadataPatch(heldDb ?? db, req.owner, labels);
  if (dbPatch) await client.patch(ExternalKinds.MariaDBDatabase, ref, dbPatch, 'merge');
  if (dbPatch || dbHeld) return { state: 'waiting', retryAfterMs: MARIADB_RECHECK_MS };
  const services = await client.list(Kinds.Service, {
    namespace: req.namespace,
    labelSelector: Object.entries(galeraServiceLabels(req.instance))
      .map(([k, v]) => `${k}=${v}`)
      .join(','),
  });
  if (services.items.length === 0) return { state: 'waiting', retryAfterMs: SERVICE_RECHECK_MS };
  if (services.items.length > 1) {
    throw new Error(`more then one DB service found (${services.items.length})`);
  }
  const hostname = `${services.items[0]?.metadata.name}.${req.namespace}.svc`;
  const accountRef = { name: req.accountName, namespace: req.namespace };
  const accountHeld = !account.metadata.finalizers?.includes(req.finalizer);
  const heldAccount = accountHeld
    ? await holdFinalizer(client, ExternalKinds.MariaDBAccount, account, req.finalizer)
    : account;
  const accountPatch = metadataPatch(heldAccount ?? account, req.owner, {
    mariaDBDatabaseName: req.databaseCrName,
  });
  if (accountPatch) await client.patch(ExternalKinds.MariaDBAccount, accountRef, accountPatch, 'merge');
  if (accountPatch || accountHeld) return { state: 'waiting', retryAfterMs: MARIADB_RECHECK_MS };
  if (!isTrue(db, DATABASE_READY) || !isTrue(account, ConditionType.MariaDBAccountReady)) {
    return { state: 'waiting', retryAfterMs: MARIADB_RECHECK_MS };
  }
  return { state: 'ready', hostname, tlsSupport: db.status?.tlsSupport ?? false };
}

export type MariaDbOutcome =
  | { ready: true; connection: MariaDbConnection }
  | { ready: false; retryAfterMs?: number };

const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/**
 * The whole step in mariadb-operator mode, with upstream's conditions: `MariaDBAccountReady`
 * True "MariaDBAccount creation complete" or False "MariaDBAccount is not present: …";
 * `DBReady` False/Requested "DB create job still running" while mariadb-operator works,
 * False/Error on an error, True "DB create completed" with the connection to use.
 */
export async function reconcileMariaDb(
  client: KubeClient,
  conditions: Conditions,
  req: MariaDbRequest,
): Promise<MariaDbOutcome> {
  let ensured: Awaited<ReturnType<typeof ensureMariaDbAccount>>;
  try {
    ensured = await ensureMariaDbAccount(client, req);
  } catch (err) {
    conditions.markFalse(
      ConditionType.MariaDBAccountReady,
      'Error',
      'Warning',
      'MariaDBAccount is not present: %s',
      messageOf(err),
    );
    return { ready: false, retryAfterMs: MARIADB_RECHECK_MS };
  }
  conditions.markTrue(ConditionType.MariaDBAccountReady);
  let db: MariaDbDatabaseState;
  try {
    db = await ensureMariaDbDatabase(client, req, ensured.account);
  } catch (err) {
    conditions.markError(ConditionType.DBReady, messageOf(err));
    return { ready: false };
  }
  if (db.state === 'waiting') {
    conditions.markRequested(ConditionType.DBReady);
    return { ready: false, retryAfterMs: db.retryAfterMs };
  }
  conditions.markTrue(ConditionType.DBReady);
  return {
    ready: true,
    connection: {
      hostname: db.hostname,
      user: ensured.account.spec?.userName ?? '',
      password: ensured.password,
      tlsSupport: db.tlsSupport,
    },
  };
}

/**
 * On the service CR's deletion (upstream `DeleteDatabaseAndAccountFinalizers`): its finalizer
 * leaves the MariaDBDatabase, the account and the account's Secret, so mariadb-operator may drop
 * them once garbage collection deletes them with their owner.
 */
export async function releaseMariaDbFinalizers(
  client: KubeClient,
  req: Pick<MariaDbRequest, 'namespace' | 'databaseCrName' | 'accountName' | 'finalizer'>,
): Promise<void> {
  const drop = (kind: KindRef, name: string) =>
    releaseFinalizer(client, kind, { name, namespace: req.namespace }, req.finalizer);
  const account = await client.get<MariaDBAccount & KubeObject>(ExternalKinds.MariaDBAccount, {
    name: req.accountName,
    namespace: req.namespace,
  });
  if (account?.spec?.secret) await drop(Kinds.Secret, account.spec.secret);
  await drop(ExternalKinds.MariaDBAccount, req.accountName);
  await drop(ExternalKinds.MariaDBDatabase, req.databaseCrName);
}
