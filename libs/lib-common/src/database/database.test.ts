import { describe, expect, it } from 'vitest';
import { Conditions } from '../conditions/conditions.js';
import { ExternalKinds } from '../external/index.js';
import { FakeKubeClient } from '../testing/fake.js';
import {
  buildDbCreateJob,
  databaseClientConfig,
  databaseConnectionUrl,
  databaseHostname,
  dbCreateScript,
  dbCreateStatements,
  findGalera,
  isGaleraService,
  setDbReadyCondition,
  sqlString,
} from './index.js';

describe('dbCreateStatements', () => {
  it('creates database and account idempotently and grants everything on the database', () => {
    const sql = dbCreateStatements({ database: 'keystone', account: 'keystone' }, sqlString('pw'));
    expect(sql).toEqual([
      'CREATE DATABASE IF NOT EXISTS keystone CHARACTER SET utf8 COLLATE utf8_general_ci;',
      "CREATE USER IF NOT EXISTS 'keystone'@'%';",
      "ALTER USER 'keystone'@'%' IDENTIFIED BY 'pw';",
      "GRANT ALL PRIVILEGES ON keystone.* TO 'keystone'@'%';",
      'FLUSH PRIVILEGES;',
    ]);
  });

  it('refuses names that are not bare identifiers', () => {
    expect(() => dbCreateStatements({ database: 'a;drop', account: 'x' }, "''")).toThrow(/database "a;drop"/);
    expect(() => dbCreateStatements({ database: 'db', account: "x'y" }, "''")).toThrow(/account/);
  });

  it('escapes quotes and backslashes in string literals', () => {
    expect(sqlString("a'b\\c")).toBe("'a''b\\\\c'");
  });
});

describe('dbCreateScript', () => {
  it('takes passwords from the environment only', () => {
    const script = dbCreateScript({ database: 'keystone', account: 'keystone' });
    expect(script).toContain('MYSQL_PWD="$DB_ROOT_PASSWORD"');
    expect(script).toContain(`IDENTIFIED BY '$(sql_escape "$DB_PASSWORD")'`);
    expect(script).not.toMatch(/`/);
  });
});

describe('buildDbCreateJob', () => {
  const job = buildDbCreateJob({
    name: 'keystone-db-create',
    namespace: 'ns',
    grant: { database: 'keystone', account: 'keystone' },
    instance: 'openstack',
    secret: 'osp-secret',
    passwordKey: 'KeystoneDatabasePassword',
    secretHash: 'h1',
    ttlSecondsAfterFinished: 600,
  });
  const spec = job['spec'] as {
    ttlSecondsAfterFinished: number;
    template: { spec: Record<string, unknown> };
  };
  const container = (spec.template.spec['containers'] as { env: { name: string }[] }[])[0]!;

  it('points at the MariaDB Service and references the Secret keys', () => {
    expect(container.env).toEqual(
      expect.arrayContaining([
        { name: 'DB_HOST', value: 'openstack.ns.svc' },
        { name: 'DB_PORT', value: '3306' },
        { name: 'DB_SECRET_HASH', value: 'h1' },
        {
          name: 'DB_ROOT_PASSWORD',
          valueFrom: { secretKeyRef: { name: 'osp-secret', key: 'DbRootPassword' } },
        },
        {
          name: 'DB_PASSWORD',
          valueFrom: { secretKeyRef: { name: 'osp-secret', key: 'KeystoneDatabasePassword' } },
        },
      ]),
    );
    expect(spec.ttlSecondsAfterFinished).toBe(600);
    expect(spec.template.spec['restartPolicy']).toBe('OnFailure');
  });

  it('reads the root password from its own Secret when given, and labels the Job but not its pod', () => {
    const other = buildDbCreateJob({
      name: 'placement-db-create',
      namespace: 'ns',
      grant: { database: 'placement', account: 'placement' },
      instance: 'openstack',
      secret: 'placement-db-secret',
      passwordKey: 'DatabasePassword',
      rootSecret: 'osp-secret',
      secretHash: 'h',
      labels: { service: 'placement' },
    }) as {
      metadata: { labels?: object };
      spec: { template: { metadata: { labels?: object }; spec: object } };
    };
    const env = (other.spec.template.spec as { containers: { env: object[] }[] }).containers[0]?.env;
    expect(env).toEqual(
      expect.arrayContaining([
        {
          name: 'DB_ROOT_PASSWORD',
          valueFrom: { secretKeyRef: { name: 'osp-secret', key: 'DbRootPassword' } },
        },
        {
          name: 'DB_PASSWORD',
          valueFrom: { secretKeyRef: { name: 'placement-db-secret', key: 'DatabasePassword' } },
        },
      ]),
    );
    expect(other.metadata.labels).toEqual({ service: 'placement' });
    expect(other.spec.template.metadata.labels).toBeUndefined();
  });
});

describe('client config', () => {
  it('renders my.cnf and a percent-encoded connection URL', () => {
    expect(databaseClientConfig()).toBe('[client]\nssl=0');
    expect(databaseClientConfig({})).toBe(
      '[client]\nssl-ca=/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem\nssl=1',
    );
    expect(databaseClientConfig({ caPath: '/ca.pem', certPath: '/c.crt', keyPath: '/c.key' })).toBe(
      '[client]\nssl-cert=/c.crt\nssl-key=/c.key\nssl-ca=/ca.pem\nssl=1',
    );
    expect(
      databaseConnectionUrl({
        user: 'keystone',
        password: 'p@ss$w/rd',
        host: databaseHostname('openstack', 'ns'),
        database: 'keystone',
      }),
    ).toBe(
      'mysql+pymysql://keystone:p%40ss%24w%2Frd@openstack.ns.svc/keystone?read_default_file=/etc/my.cnf',
    );
  });
});

describe('setDbReadyCondition', () => {
  it('maps each state to upstream condition texts', () => {
    const c = new Conditions();
    setDbReadyCondition(c, { state: 'running' });
    expect(c.get('DBReady')).toMatchObject({
      status: 'False',
      reason: 'Requested',
      message: 'DB create job still running',
    });
    setDbReadyCondition(c, { state: 'failed', message: 'Job has reached the specified backoff limit' });
    expect(c.get('DBReady')).toMatchObject({
      status: 'False',
      severity: 'Warning',
      message: 'DB create job error occurred Job has reached the specified backoff limit',
    });
    setDbReadyCondition(c, { state: 'waitingForService', service: 'openstack' });
    expect(c.get('DBReady')?.message).toBe('DB create waiting for the database Service openstack');
    setDbReadyCondition(c, { state: 'completed' });
    expect(c.get('DBReady')).toMatchObject({ status: 'True', message: 'DB create completed' });
  });
});

describe('isGaleraService', () => {
  it('recognises the Service mariadb-operator runs for a Galera by its labels', () => {
    const svc = (labels?: Record<string, string>) => ({
      metadata: { name: 'openstack', ...(labels ? { labels } : {}) },
    });
    expect(isGaleraService(svc({ app: 'mariadb', cr: 'mariadb-openstack' }), 'openstack')).toBe(true);
    expect(isGaleraService(svc({ app: 'mariadb', cr: 'mariadb-other' }), 'openstack')).toBe(false);
    expect(isGaleraService(svc(), 'openstack')).toBe(false);
    expect(isGaleraService(undefined, 'openstack')).toBe(false);
  });
});

describe('findGalera from a reconcile context', () => {
  const galera = {
    apiVersion: 'mariadb.openstack.org/v1beta1',
    kind: 'Galera',
    metadata: { name: 'openstack', namespace: 'ns' },
  };
  const setup = (lookup: () => unknown) => {
    const client = new FakeKubeClient({ served: [ExternalKinds.Galera] });
    client.seed(ExternalKinds.Galera, galera);
    const gets = () => client.calls.filter((c) => c.verb === 'get').length;
    return { ctx: { client, cache: { lookupOptional: lookup } }, gets };
  };

  it('answers from the watch when it holds the Galera, with no request', async () => {
    const known = setup(() => ({ known: true, obj: galera }));
    expect((await findGalera(known.ctx, 'openstack', 'ns'))?.metadata.name).toBe('openstack');
    expect(known.gets()).toBe(0);
  });

  it('confirms the watch\'s "none" with the API server (a Galera created a moment ago is not Job mode)', async () => {
    const lagging = setup(() => ({ known: true, obj: undefined }));
    expect((await findGalera(lagging.ctx, 'openstack', 'ns'))?.metadata.name).toBe('openstack');
    expect(lagging.gets()).toBe(1);
  });

  it('asks the API server while the watch does not know yet (never "no Galera" then: that would mean Job mode)', async () => {
    const unknown = setup(() => ({ known: false }));
    expect((await findGalera(unknown.ctx, 'openstack', 'ns'))?.metadata.name).toBe('openstack');
    expect(unknown.gets()).toBe(1);
  });
});
