/** Where the services mount the client config (`read_default_file` in the connection URL). */
export const MY_CNF_PATH = '/etc/my.cnf';

/** Where the CA bundle is mounted in the services' pods (lib-common's `tls-ca-bundle.pem` mount). */
export const DATABASE_CA_BUNDLE_PATH = '/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem';

/**
 * The `my.cnf` the service's pods read (upstream `GetDatabaseClientConfig`): a `[client]` section
 * with `ssl=0`, or — when the database supports TLS and the service mounts a CA bundle — the CA
 * (and a client certificate if given) with `ssl=1`.
 */
export function databaseClientConfig(tls?: { caPath?: string; certPath?: string; keyPath?: string }): string {
  if (!tls) return ['[client]', 'ssl=0'].join('\n');
  const lines = ['[client]'];
  if (tls.certPath && tls.keyPath) lines.push(`ssl-cert=${tls.certPath}`, `ssl-key=${tls.keyPath}`);
  lines.push(`ssl-ca=${tls.caPath ?? DATABASE_CA_BUNDLE_PATH}`, 'ssl=1');
  return lines.join('\n');
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
