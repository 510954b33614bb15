export {
  type ConnectionUrlParts,
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
  assertSqlIdentifier,
  DB_ROOT_PASSWORD_KEY,
  DEFAULT_DATABASE_INSTANCE,
  DEFAULT_DB_PORT,
  databaseHostname,
  dbCreateJobName,
} from './names.js';
export { type DatabaseGrant, dbCreateScript, dbCreateStatements, sqlString } from './sql.js';
