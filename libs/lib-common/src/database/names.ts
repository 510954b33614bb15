/**
 * Names used by the database mechanism. Database and account names go into SQL unquoted, so they
 * are restricted to what MariaDB accepts as a bare identifier (and what upstream services use).
 */

const IDENTIFIER = /^[A-Za-z0-9_]{1,64}$/;

/** Throws when `name` cannot be used as a bare SQL identifier. */
export function assertSqlIdentifier(what: string, name: string): void {
  if (!IDENTIFIER.test(name)) {
    throw new Error(`${what} "${name}" must be 1-64 letters, digits or underscores`);
  }
}

/** Key of the MariaDB root password in the service's input Secret (as install_yamls' osp-secret). */
export const DB_ROOT_PASSWORD_KEY = 'DbRootPassword';
export const DEFAULT_DB_PORT = 3306;
/** The name upstream tooling gives the MariaDB instance. */
export const DEFAULT_DATABASE_INSTANCE = 'openstack';

/** The in-cluster DNS name of the MariaDB Service (upstream `status.databaseHostname`). */
export const databaseHostname = (instance: string, namespace: string): string =>
  `${instance}.${namespace}.svc`;

/** The db-create Job of a service CR. */
export const dbCreateJobName = (crName: string): string => `${crName}-db-create`;
