import { assertSqlIdentifier } from './names.js';

/** What to create on the server: a database and an account with every privilege on it. */
export interface DatabaseGrant {
  database: string;
  account: string;
  /** Host part of the account (default `%`: any client address). */
  accountHost?: string;
  characterSet?: string;
  collation?: string;
}

/** Escapes a value for a single-quoted SQL string literal (default sql_mode). */
export function sqlString(value: string): string {
  return `'${value.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`;
}

/**
 * The idempotent statements, with the account password given as an already-quoted SQL literal
 * (the Job passes a shell-escaped value; tests pass `sqlString(pw)`). Running them again converges
 * to the same state: the database and account exist, the password is the given one, grants hold.
 */
export function dbCreateStatements(grant: DatabaseGrant, passwordLiteral: string): string[] {
  assertSqlIdentifier('database', grant.database);
  assertSqlIdentifier('account', grant.account);
  const host = grant.accountHost ?? '%';
  const user = `${sqlString(grant.account)}@${sqlString(host)}`;
  const charset = grant.characterSet ?? 'utf8';
  const collation = grant.collation ?? 'utf8_general_ci';
  assertSqlIdentifier('character set', charset);
  assertSqlIdentifier('collation', collation);
  return [
    `CREATE DATABASE IF NOT EXISTS ${grant.database} CHARACTER SET ${charset} COLLATE ${collation};`,
    `CREATE USER IF NOT EXISTS ${user};`,
    `ALTER USER ${user} IDENTIFIED BY ${passwordLiteral};`,
    `GRANT ALL PRIVILEGES ON ${grant.database}.* TO ${user};`,
    'FLUSH PRIVILEGES;',
  ];
}

/**
 * The db-create Job's shell script. Passwords come from the environment (Secret references), never
 * from the Job spec: `DB_ROOT_PASSWORD` is handed to the client through MYSQL_PWD, `DB_PASSWORD`
 * is escaped in the shell and spliced into the ALTER USER statement. `DB_HOST`/`DB_PORT` name the server.
 */
export function dbCreateScript(grant: DatabaseGrant): string {
  // The heredoc body is expanded by bash: only $(sql_escape ...) may appear in it; identifiers are
  // validated to plain [A-Za-z0-9_] and the literal quotes below are SQL quotes, not shell ones.
  const body = dbCreateStatements(grant, `'$(sql_escape "$DB_PASSWORD")'`).join('\n');
  return [
    'set -euo pipefail',
    // default sql_mode: backslash escapes, and a quote is doubled
    `sql_escape() { local s=\${1//\\\\/\\\\\\\\}; printf '%s' "\${s//\\'/\\'\\'}"; }`,
    'client=$(command -v mariadb || command -v mysql)',
    'export MYSQL_PWD="$DB_ROOT_PASSWORD"',
    '"$client" --protocol=TCP -h "$DB_HOST" -P "$DB_PORT" -u root --connect-timeout=10 <<EOSQL',
    body,
    'EOSQL',
    'echo "database and account are in place"',
    '',
  ].join('\n');
}
