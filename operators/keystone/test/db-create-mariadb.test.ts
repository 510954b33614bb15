import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildDbCreateJob } from '@stackops/lib-common/database';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The db-create Job's script, run as the Job would run it (bash, env from the Secret) against a
 * real MariaDB server on 127.0.0.1 (Debian's mariadb-server, started privately by mariadb.sh).
 */
const MARIADB_SH = fileURLToPath(new URL('./support/mariadb.sh', import.meta.url));
// A password with every character SQL or the shell could trip over (and no `$VAR`, which the input rules refuse).
const PASSWORD = `it's a "pass" \\ word; -- ok`;

interface Server {
  PORT: string;
  ROOT_PASSWORD: string;
}

function jobScript(): { script: string; env: Record<string, string> } {
  const job = buildDbCreateJob({
    name: 'keystone-db-create',
    namespace: 'ns',
    grant: { database: 'keystone', account: 'keystone' },
    instance: 'openstack',
    secret: 'osp-secret',
    passwordKey: 'KeystoneDatabasePassword',
    secretHash: 'h',
  });
  const container = (
    job['spec'] as {
      template: { spec: { containers: { command: string[]; env: { name: string; value?: string }[] }[] } };
    }
  ).template.spec.containers[0]!;
  const env = Object.fromEntries(
    container.env.filter((e) => e.value !== undefined).map((e) => [e.name, e.value!]),
  );
  return { script: container.command[2]!, env };
}

describe('db-create SQL against a real MariaDB', () => {
  let dir: string;
  let server: Server;

  const sql = (user: string, password: string, query: string): string =>
    execFileSync(
      'mariadb',
      [
        '--no-defaults',
        '--protocol=TCP',
        '-h',
        '127.0.0.1',
        '-P',
        server.PORT,
        '-u',
        user,
        '-N',
        '-B',
        '-e',
        query,
      ],
      {
        env: { ...process.env, MYSQL_PWD: password },
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    ).trim();

  const runJob = (password: string): string => {
    const { script, env } = jobScript();
    return execFileSync('bash', ['-c', script], {
      env: {
        ...process.env,
        ...env,
        DB_HOST: '127.0.0.1',
        DB_PORT: server.PORT,
        DB_ROOT_PASSWORD: server.ROOT_PASSWORD,
        DB_PASSWORD: password,
      },
      encoding: 'utf8',
    });
  };

  const outcome = () => ({
    databases: sql('root', server.ROOT_PASSWORD, "SHOW DATABASES LIKE 'keystone'"),
    charset: sql(
      'root',
      server.ROOT_PASSWORD,
      "SELECT DEFAULT_CHARACTER_SET_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME='keystone'",
    ),
    users: sql(
      'root',
      server.ROOT_PASSWORD,
      "SELECT CONCAT(user,'@',host) FROM mysql.user WHERE user='keystone'",
    ),
    grants: sql('root', server.ROOT_PASSWORD, "SHOW GRANTS FOR 'keystone'@'%'").replace(
      /PASSWORD '[^']*'/,
      "PASSWORD '…'",
    ),
  });

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'keystone-mariadb-'));
    const out = execFileSync(MARIADB_SH, ['start', dir], { encoding: 'utf8', timeout: 590_000 });
    server = Object.fromEntries(
      out
        .trim()
        .split('\n')
        .map((l) => l.split(/=(.*)/s).slice(0, 2)),
    ) as unknown as Server;
  }, 600_000);

  afterAll(() => {
    if (dir) {
      execFileSync(MARIADB_SH, ['stop', dir]);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('creates the database and account, and a second run leaves the same state', () => {
    expect(runJob(PASSWORD)).toContain('database and account are in place');
    const first = outcome();
    expect(first).toMatchObject({ databases: 'keystone', charset: 'utf8mb3', users: 'keystone@%' });
    expect(first.grants).toContain('GRANT ALL PRIVILEGES ON `keystone`.* TO `keystone`@`%`');
    expect(sql('keystone', PASSWORD, 'SELECT DATABASE(), CURRENT_USER()')).toBe('NULL\tkeystone@%');
    expect(
      sql('keystone', PASSWORD, 'CREATE TABLE keystone.t (i INT); DROP TABLE keystone.t; SELECT 1'),
    ).toBe('1');

    runJob(PASSWORD);
    expect(outcome()).toEqual(first);
    expect(sql('keystone', PASSWORD, 'SELECT 1')).toBe('1');
  });

  it('a changed password takes effect on the next run and the old one stops working', () => {
    runJob('new-password');
    expect(sql('keystone', 'new-password', 'SELECT 1')).toBe('1');
    expect(() => sql('keystone', PASSWORD, 'SELECT 1')).toThrow(/Access denied/);
  });
});
