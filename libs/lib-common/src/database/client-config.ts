/** Where the services mount the client config (`read_default_file` in the connection URL). */
export const MY_CNF_PATH = '/etc/my.cnf';

/**
 * The `my.cnf` the service's pods read (upstream `GetDatabaseClientConfig`): a `[client]` section,
 * TLS off until TLS to the database is implemented.
 */
export function databaseClientConfig(): string {
  return ['[client]', 'ssl=0'].join('\n');
}

export interface ConnectionUrlParts {
  user: string;
  password: string;
  host: string;
  database: string;
  /** SQLAlchemy dialect+driver, default `mysql+pymysql`. */
  driver?: string;
  readDefaultFile?: string;
}

/**
 * The SQLAlchemy URL written into the service's config, e.g.
 * `mysql+pymysql://keystone:pw@openstack.ns.svc/keystone?read_default_file=/etc/my.cnf`.
 * User and password are percent-encoded, so any character is safe in the URL and no `$` reaches
 * oslo.config (which would try to substitute it); upstream writes them raw.
 */
export function databaseConnectionUrl(p: ConnectionUrlParts): string {
  const driver = p.driver ?? 'mysql+pymysql';
  const file = p.readDefaultFile ?? MY_CNF_PATH;
  const auth = `${encodeURIComponent(p.user)}:${encodeURIComponent(p.password)}`;
  return `${driver}://${auth}@${p.host}/${p.database}?read_default_file=${file}`;
}
