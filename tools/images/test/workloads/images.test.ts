import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dbCreateScript } from '@stackops/lib-common/database';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkloadImages } from '../../src/workloads/index.js';
import { fromImage, workloadImages } from './support/images.js';
import { Node } from './support/sandbox.js';

/**
 * The stand-in images' contract, checked by running their root filesystems (chroot, no cluster):
 * kolla_start, the TCIB users, httpd's RHEL layout, the services' commands, MariaDB and the
 * db-create Job's client. What the operators render is run in operator-output.test.ts.
 */

let result: WorkloadImages;
let node: Node;
const scratch = mkdtempSync(join(tmpdir(), 'workload-images-test-'));

beforeAll(async () => {
  result = await workloadImages();
  node = await Node.start(['openstack.testns.svc']);
}, 1_800_000);
afterAll(async () => {
  await node?.close();
  rmSync(scratch, { recursive: true, force: true });
});

const image = (name: keyof WorkloadImages['images']) => result.images[name];
const file = (name: string, content: string, mode = 0o644) => {
  const path = join(scratch, name);
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, content);
  chmodSync(path, mode);
  return path;
};

describe('the workload images', () => {
  it('are named localhost/stackops/openstack-<service>:<version of the software they carry>', () => {
    expect(image('keystone').name).toBe('localhost/stackops/openstack-keystone:30.0.0');
    expect(image('placement').name).toBe('localhost/stackops/openstack-placement-api:16.0.0');
    expect(image('openstackclient').name).toBe('localhost/stackops/openstack-openstackclient:10.5.0');
    expect(image('mariadb').name).toMatch(/^localhost\/stackops\/openstack-mariadb:10\.11\.\d+$/);
    expect(image('keystone').env).toEqual(['RELATED_IMAGE_KEYSTONE_API_IMAGE_URL_DEFAULT']);
    expect(image('placement').env).toEqual(['RELATED_IMAGE_PLACEMENT_API_IMAGE_URL_DEFAULT']);
    expect(image('mariadb').env).toEqual(['RELATED_IMAGE_MARIADB_IMAGE_URL_DEFAULT']);
  });

  it('share their common layers: keystone and placement stack base, httpd, python; openstackclient base, python', () => {
    const ids = (name: keyof WorkloadImages['images']) => image(name).built.layers.map((l) => l.diffId);
    const [base, httpd, python] = ids('keystone');
    expect(ids('placement').slice(0, 3)).toEqual([base, httpd, python]);
    expect(ids('openstackclient').slice(0, 2)).toEqual([base, python]);
    expect(ids('mariadb')[0]).toBe(base);
    expect(
      new Set([...ids('keystone'), ...ids('placement'), ...ids('mariadb'), ...ids('openstackclient')]).size,
    ).toBe(7);
  });

  it("carry the TCIB images' users: the kolla UIDs/GIDs, apache 48, service users in group kolla", () => {
    const passwd = readFileSync(join(result.layers.base.tree, 'etc/passwd'), 'utf8');
    const group = readFileSync(join(result.layers.base.tree, 'etc/group'), 'utf8');
    const uid = (name: string) =>
      passwd
        .match(new RegExp(`^${name}:x:(\\d+):(\\d+):`, 'm'))
        ?.slice(1)
        .map(Number);
    expect(uid('keystone')).toEqual([42425, 42425]);
    expect(uid('placement')).toEqual([42482, 42482]);
    expect(uid('mysql')).toEqual([42434, 42434]);
    expect(uid('cloud-admin')).toEqual([42401, 42401]);
    expect(uid('apache')).toEqual([48, 48]);
    expect(group).toMatch(/^kolla:x:42400:keystone,placement,mysql,cloud-admin$/m);
  });

  it('print the versions they carry, and record every Debian package and Python distribution', () => {
    expect(image('keystone').versions).toMatchObject({ keystone: '30.0.0' });
    expect(image('keystone').versions['httpd']).toMatch(/^2\.4\./);
    expect(image('keystone').versions['mod_wsgi']).toMatch(/^4\./);
    expect(image('placement').versions).toMatchObject({ 'openstack-placement': '16.0.0' });
    expect(result.layers.python.wheels).toMatchObject({
      keystone: '30.0.0',
      'openstack-placement': '16.0.0',
    });
    expect(Object.keys(result.layers.python.wheels).length).toBeGreaterThan(100);
    expect(result.layers.mariadb.debs['mariadb-server']).toMatch(/^1:10\.11\./);
  });
});

describe('kolla_start', () => {
  // kolla_start splits the command on spaces (no shell quoting), so the check is a script.
  const sample = () =>
    JSON.stringify({
      command: '/bin/sh /var/lib/config-data/check.sh',
      config_files: [
        {
          source: '/var/lib/config-data/sample.conf',
          dest: '/etc/keystone/sample.conf',
          owner: 'keystone',
          perm: '0600',
        },
        {
          source: '/var/lib/config-data/extra/*',
          dest: '/etc/keystone/extra.d/',
          owner: 'keystone:kolla',
          perm: '0640',
          merge: true,
        },
        {
          source: '/var/lib/config-data/absent.conf',
          dest: '/etc/absent.conf',
          owner: 'root',
          perm: '0600',
          optional: true,
        },
      ],
      permissions: [{ path: '/var/log/keystone', owner: 'keystone:kolla', perm: '0750', recurse: true }],
    });
  const check = `stat -c '%U:%G %a %n' /etc/keystone/sample.conf /etc/keystone/extra.d/a.conf /var/log/keystone/x
id -un
test ! -e /etc/absent.conf && echo no-absent
`;

  const mounts = (config: string) => {
    file('kolla/extra/a.conf', 'a');
    mkdirSync(join(scratch, 'kolla/log/x'), { recursive: true });
    return [
      {
        source: file('kolla/sample.conf', '[DEFAULT]\n'),
        target: '/var/lib/config-data/sample.conf',
        readOnly: true,
      },
      { source: file('kolla/check.sh', check), target: '/var/lib/config-data/check.sh', readOnly: true },
      { source: join(scratch, 'kolla/extra'), target: '/var/lib/config-data/extra', readOnly: true },
      {
        source: file('kolla/config.json', config),
        target: '/var/lib/kolla/config_files/config.json',
        readOnly: true,
      },
      { source: join(scratch, 'kolla/log'), target: '/var/log/keystone' },
    ];
  };

  it('copies the config files with their owner and mode, sets the permissions, then execs the command as the user', async () => {
    const out = await node.runToCompletion(
      fromImage(image('keystone'), {
        name: 'kolla-sample',
        command: ['/bin/bash', '-c', '/usr/local/bin/kolla_start'],
        env: { KOLLA_CONFIG_STRATEGY: 'COPY_ALWAYS' },
        uid: 42425,
        mounts: mounts(sample()),
      }),
    );
    expect(out).toContain('keystone:keystone 600 /etc/keystone/sample.conf');
    expect(out).toContain('keystone:kolla 640 /etc/keystone/extra.d/a.conf');
    expect(out).toContain('keystone:kolla 750 /var/log/keystone/x');
    expect(out).toMatch(/^keystone$/m);
    expect(out).toMatch(/^no-absent$/m);
    expect(out).toContain("running '/bin/sh /var/lib/config-data/check.sh'");
  });

  it('refuses a config without a command, a missing required source and an unknown strategy', async () => {
    const run = (name: string, config: unknown, strategy = 'COPY_ALWAYS') =>
      node.run(
        fromImage(image('keystone'), {
          name,
          command: ['/usr/local/bin/kolla_start'],
          env: { KOLLA_CONFIG_STRATEGY: strategy },
          mounts: [
            {
              source: file(`kolla/${name}.json`, JSON.stringify(config)),
              target: '/var/lib/kolla/config_files/config.json',
            },
          ],
        }),
      );
    const noCommand = run('no-command', { config_files: [] });
    const missing = run('missing', {
      command: 'true',
      config_files: [{ source: '/nope', dest: '/etc/x', owner: 'root', perm: '0600' }],
    });
    const strategy = run('strategy', { command: 'true' }, 'SOMETIMES');
    expect(await noCommand.exited).toBe(1);
    expect(noCommand.output()).toContain('has no "command"');
    expect(await missing.exited).toBe(1);
    expect(missing.output()).toContain('source /nope does not exist');
    expect(await strategy.exited).toBe(1);
    expect(strategy.output()).toContain('KOLLA_CONFIG_STRATEGY must be COPY_ALWAYS or COPY_ONCE');
  });

  it('needs sudo as a service user: with allowPrivilegeEscalation false (no_new_privs) it cannot start, as with TCIB', async () => {
    const p = node.run(
      fromImage(image('placement'), {
        name: 'kolla-nnp',
        command: ['/bin/bash', '-c', '/usr/local/bin/kolla_start'],
        env: { KOLLA_CONFIG_STRATEGY: 'COPY_ALWAYS' },
        uid: 42482,
        noNewPrivileges: true,
        mounts: [
          {
            source: file('kolla/nnp.json', JSON.stringify({ command: 'true' })),
            target: '/var/lib/kolla/config_files/config.json',
          },
        ],
      }),
    );
    expect(await p.exited).not.toBe(0);
    expect(p.output()).toContain('"no new privileges" flag is set');
  });
});

describe('the service images', () => {
  const probe = (image: 'keystone' | 'placement', script: string) =>
    node.runToCompletion(
      fromImage(result.images[image], { name: `${image}-commands`, command: ['/bin/bash', '-ec', script] }),
    );

  it('have keystone-manage and the WSGI script the keystone vhosts name (keystone-wsgi-public)', async () => {
    const out = await probe(
      'keystone',
      'keystone-manage --version 2>/dev/null; grep import /usr/bin/keystone-wsgi-public /var/www/cgi-bin/keystone/main',
    );
    expect(out).toMatch(/^30\.0\.0$/m);
    expect(out).toContain('/usr/bin/keystone-wsgi-public:from keystone.wsgi.api import application');
    expect(out).toContain('/var/www/cgi-bin/keystone/main:from keystone.wsgi.api import application');
  });

  it('have placement-manage and the WSGI script the placement vhosts name (placement-api), and dumb-init and tail for the -log container', async () => {
    const out = await probe(
      'placement',
      'placement-manage --version 2>/dev/null; grep import /usr/bin/placement-api; command -v dumb-init tail',
    );
    expect(out).toMatch(/^16\.0\.0$/m);
    expect(out).toContain('from placement.wsgi.api import application');
    expect(out).toContain('/usr/bin/dumb-init\n/usr/bin/tail');
  });

  it('have the openstack CLI for cloud-admin in the openstackclient image', async () => {
    const osc = await node.runToCompletion(
      fromImage(image('openstackclient'), {
        name: 'osc',
        args: ['/bin/bash', '-c', 'id -un; pwd; openstack --version; env - openstack --version'],
      }),
    );
    // `env -` leaves no PATH: execvp searches /bin:/usr/bin only, where TCIB has the CLI too.
    expect(osc).toMatch(/cloud-admin\n\/home\/cloud-admin\nopenstack 10\.5\.0\nopenstack 10\.5\.0/);
  });

  it("run httpd as RHEL's, from /etc/httpd; the TCIB ssl.conf in conf.d needs a certificate that nothing generates", async () => {
    const p = node.run(fromImage(image('keystone'), { name: 'httpd-t', command: ['/usr/sbin/httpd', '-t'] }));
    expect(await p.exited).toBe(1);
    expect(p.output()).toContain('AH00526: Syntax error on line');
    expect(p.output()).toContain(
      "SSLCertificateFile: file '/etc/pki/tls/certs/localhost.crt' does not exist or is empty",
    );
    const layout = await node.runToCompletion(
      fromImage(image('keystone'), {
        name: 'httpd-layout',
        command: [
          '/bin/sh',
          '-c',
          'stat -c "%U:%G %a %N" /etc/httpd/run /run/httpd /etc/httpd/logs /etc/httpd/modules; ls /etc/httpd/conf.modules.d',
        ],
      }),
    );
    expect(layout).toContain("'/etc/httpd/run' -> '/run/httpd'");
    expect(layout).toContain('root:apache 710 ');
    expect(layout).toContain('10-wsgi-python3.conf');
  });
});

describe('the mariadb image', () => {
  const rootPassword = `r'o"o\\t $x`;
  let server: ReturnType<Node['run']>;

  beforeAll(async () => {
    mkdirSync(join(scratch, 'mysql'), { mode: 0o777 });
    chmodSync(join(scratch, 'mysql'), 0o777);
    server = node.run(
      fromImage(image('mariadb'), {
        name: 'mariadb',
        env: { DB_ROOT_PASSWORD: rootPassword },
        mounts: [{ source: join(scratch, 'mysql'), target: '/var/lib/mysql' }],
      }),
    );
    for (let i = 0; i < 300 && !server.output().includes('ready for connections'); i++) {
      await new Promise((r) => setTimeout(r, 200));
    }
  }, 120_000);

  const client = (name: string, script: string, env: Record<string, string>) =>
    node.runToCompletion(
      fromImage(image('mariadb'), {
        name,
        command: ['/bin/bash', '-c', script],
        env,
        noNewPrivileges: true,
        dropCapabilities: ['ALL'],
      }),
    );

  it('serves on 3306 with the root password from DB_ROOT_PASSWORD, for root from any host', async () => {
    expect(server.output()).toContain('ready for connections');
    const out = await client(
      'root-login',
      'mariadb --protocol=TCP -h openstack.testns.svc -u root -N -e "select current_user()"',
      {
        MYSQL_PWD: rootPassword,
      },
    );
    expect(out.trim()).toBe('root@%');
  });

  it("runs the operators' db-create Job script (lib-common), twice to the same state", async () => {
    const env = {
      DB_HOST: 'openstack.testns.svc',
      DB_PORT: '3306',
      DB_ROOT_PASSWORD: rootPassword,
      DB_PASSWORD: `pa'ss\\word`,
    };
    const script = dbCreateScript({ database: 'keystone', account: 'keystone' });
    expect(await client('db-create', script, env)).toContain('database and account are in place');
    expect(await client('db-create-again', script, env)).toContain('database and account are in place');
    const login = await client(
      'account-login',
      'mariadb --protocol=TCP -h "$DB_HOST" -u keystone -N -e "show databases like \'keystone\'"',
      {
        DB_HOST: env.DB_HOST,
        MYSQL_PWD: env.DB_PASSWORD,
      },
    );
    expect(login.trim()).toBe('keystone');
  });
});

describe("SIP's stand-ins", () => {
  it("are named for the software they carry, picked by sip-operator's variables", () => {
    expect(image('haproxy').name).toMatch(/^localhost\/stackops\/haproxy:2\.6\.\d+$/);
    expect(image('jumphost').name).toMatch(/^localhost\/stackops\/jump-host:9\.2p1$/);
    expect(image('haproxy').env).toEqual(['RELATED_IMAGE_HAPROXY']);
    expect(image('jumphost').env).toEqual(['RELATED_IMAGE_JUMP_HOST']);
    expect(image('jumphost').versions).toMatchObject({ redfishtool: '1.1.8' });
  });

  it('jump host: no host keys shipped, ubuntu 1000 owns a 0700 ~/.ssh, /opt/sip/bin on the PATH', async () => {
    const { readdirSync, statSync } = await import('node:fs');
    const tree = result.layers.jumphost.tree;
    expect(readdirSync(join(tree, 'etc/ssh')).filter((f) => f.startsWith('ssh_host_'))).toEqual([]);
    const ssh = statSync(join(tree, 'home/ubuntu/.ssh'));
    expect({ uid: ssh.uid, gid: ssh.gid, mode: ssh.mode & 0o777 }).toEqual({
      uid: 1000,
      gid: 1000,
      mode: 0o700,
    });
    expect(readFileSync(join(tree, 'etc/environment'), 'utf8')).toContain(':/opt/sip/bin"');
    expect(readFileSync(join(tree, 'etc/ssh/sshd_config.d/jump-host.conf'), 'utf8')).toMatch(
      /^PasswordAuthentication no$/m,
    );
    for (const bin of ['usr/bin/jq', 'usr/bin/ipmitool', 'usr/local/bin/redfishtool', 'usr/sbin/sshd'])
      expect(statSync(join(tree, bin)).isFile(), bin).toBe(true);
  });
});
