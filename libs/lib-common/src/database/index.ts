/**
 * `@stackops/lib-common/database` — a service's MariaDB database and account: the db-create Job
 * mode and mariadb-operator's MariaDBDatabase/MariaDBAccount mode (`ensureMariaDbAccount`,
 * `ensureMariaDbDatabase`, their finalizers), connection URLs and the TLS CA path. Imports
 * `client`, `conditions`, `external`, `objects` and `runtime`.
 */

export {
  type ConnectionUrlParts,
  DATABASE_CA_BUNDLE_PATH,
  databaseClientConfig,
  databaseConnectionUrl,
  MY_CNF_PATH,
} from './client-config.js';
export { type DbCreateState, setDbReadyCondition } from './condition.js';
export {
  buildDbCreateJob,
  type DbCreateJobInput,
  DEFAULT_MARIADB_CLIENT_IMAGE,
  MARIADB_IMAGE_ENV,
} from './job.js';
export {
  accountSecretName,
  ensureMariaDbAccount,
  ensureMariaDbDatabase,
  findGalera,
  isGaleraService,
  MARIADB_ACCOUNT_PASSWORD_KEY,
  MARIADB_RECHECK_MS,
  type MariaDbConnection,
  type MariaDbDatabaseState,
  type MariaDbOutcome,
  type MariaDbRequest,
  reconcileMariaDb,
  releaseMariaDbFinalizers,
} from './mariadb.js';
export {
  assertSqlIdentifier,
  DB_ROOT_PASSWORD_KEY,
  DEFAULT_DATABASE_INSTANCE,
  DEFAULT_DB_PORT,
  databaseHostname,
  dbCreateJobName,
} from './names.js';
export { type DatabaseGrant, dbCreateScript, dbCreateStatements, sqlString } from './sql.js';
