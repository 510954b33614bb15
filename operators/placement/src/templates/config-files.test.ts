import { describe, expect, it } from 'vitest';
import { ConfigFiles, type ConfigInputs, renderConfigFiles } from './config-files.js';

const inputs: ConfigInputs = {
  namespace: 'openstack',
  serviceUser: 'placement',
  servicePassword: 's3cret',
  databaseConnection:
    'mysql+pymysql://placement_1a2b:dbpw@openstack.openstack.svc/placement?read_default_file=/etc/my.cnf',
  databaseClientConfig: '[client]\nssl=0',
  keystonePublicURL: 'http://keystone-public.openstack.svc:5000',
  keystoneInternalURL: 'http://keystone-internal.openstack.svc:5000',
  region: 'regionOne',
  apiTimeout: 60,
};

/** The lines of one INI section, without blanks and comments. */
function section(ini: string, name: string): string[] {
  const out: string[] = [];
  let inside = false;
  for (const line of ini.split('\n')) {
    if (line.startsWith('[')) inside = line === `[${name}]`;
    else if (inside && line.trim() !== '' && !line.startsWith('#')) out.push(line);
  }
  return out;
}

describe('renderConfigFiles', () => {
  it('puts the database connection into [placement_database]', () => {
    const conf = renderConfigFiles(inputs)[ConfigFiles.placementConf]!;
    expect(section(conf, 'placement_database')).toEqual([`connection = ${inputs.databaseConnection}`]);
  });

  it('fills [keystone_authtoken] from the KeystoneAPI endpoints, region and service user, with the service type access rules are checked against', () => {
    const conf = renderConfigFiles(inputs)[ConfigFiles.placementConf]!;
    expect(section(conf, 'keystone_authtoken')).toEqual([
      'www_authenticate_uri = http://keystone-public.openstack.svc:5000',
      'auth_url = http://keystone-internal.openstack.svc:5000',
      'auth_type = password',
      'username = placement',
      'password = s3cret',
      'user_domain_name = Default',
      'project_domain_name = Default',
      'project_name = service',
      'interface = internal',
      'service_type = placement',
      'region_name = regionOne',
    ]);
  });

  it('with an application credential, [keystone_authtoken] logs in with v3applicationcredential and no password', () => {
    const conf = renderConfigFiles({
      ...inputs,
      applicationCredential: { id: 'ac-id-1', secret: 'ac-s3cret' },
    })[ConfigFiles.placementConf]!;
    expect(section(conf, 'keystone_authtoken')).toEqual([
      'www_authenticate_uri = http://keystone-public.openstack.svc:5000',
      'auth_url = http://keystone-internal.openstack.svc:5000',
      'auth_type = v3applicationcredential',
      'application_credential_id = ac-id-1',
      'application_credential_secret = ac-s3cret',
      'interface = internal',
      'service_type = placement',
      'region_name = regionOne',
    ]);
  });

  it('leaves region_name out when KeystoneAPI reports no region', () => {
    const conf = renderConfigFiles({ ...inputs, region: '' })[ConfigFiles.placementConf]!;
    expect(conf).not.toContain('region_name');
    expect(section(conf, 'oslo_policy')).toEqual(['policy_file = /etc/placement/policy.yaml']);
  });

  it('ships customServiceConfig as custom.conf and my.cnf from the database client config', () => {
    const files = renderConfigFiles({ ...inputs, customServiceConfig: '[DEFAULT]\ndebug = false\n' });
    expect(files[ConfigFiles.customConf]).toBe('[DEFAULT]\ndebug = false\n');
    expect(files[ConfigFiles.myCnf]).toBe('[client]\nssl=0');
    expect(renderConfigFiles(inputs)[ConfigFiles.customConf]).toBe('');
  });

  it('adds policy.yaml only when defaultConfigOverwrite carries it', () => {
    expect(renderConfigFiles(inputs)).not.toHaveProperty(ConfigFiles.policy);
    const files = renderConfigFiles({ ...inputs, defaultConfigOverwrite: { 'policy.yaml': 'a: rule' } });
    expect(files[ConfigFiles.policy]).toBe('a: rule');
  });

  it('renders one virtual host per endpoint on 8778 with the API timeout', () => {
    const httpd = renderConfigFiles({ ...inputs, apiTimeout: 120 })[ConfigFiles.httpdConf]!;
    expect(httpd).toContain('Listen 8778');
    expect(httpd.match(/<VirtualHost \*:8778>/g)).toHaveLength(2);
    expect(httpd).toContain('ServerName placement-internal.openstack.svc');
    expect(httpd).toContain('ServerName placement-public.openstack.svc');
    expect(httpd.match(/TimeOut 120/g)).toHaveLength(2);
    expect(httpd).toContain('LogFormat "%h %l %u %t \\"%r\\" %>s');
  });

  it('every WSGI process of each vhost loads placement-api when it starts, not on its first request', () => {
    const httpd = renderConfigFiles(inputs)[ConfigFiles.httpdConf]!;
    const aliases = httpd.match(/^ {2}WSGIScriptAlias .*$/gm);
    expect(aliases).toEqual([
      '  WSGIScriptAlias / /usr/bin/placement-api process-group=internal application-group=%{GLOBAL}',
      '  WSGIScriptAlias / /usr/bin/placement-api process-group=public application-group=%{GLOBAL}',
    ]);
    for (const ep of ['internal', 'public']) expect(httpd).toContain(`WSGIDaemonProcess ${ep} `);
  });

  it('writes kolla configs that run httpd for the API and placement-manage for db sync', () => {
    const files = renderConfigFiles(inputs);
    const api = JSON.parse(files[ConfigFiles.apiKolla]!) as {
      command: string;
      config_files: { dest: string }[];
    };
    const dbSync = JSON.parse(files[ConfigFiles.dbSyncKolla]!) as { command: string };
    expect(api.command).toBe('/usr/sbin/httpd -DFOREGROUND');
    expect(api.config_files.map((f) => f.dest)).toContain('/etc/httpd/conf/httpd.conf');
    expect(api.config_files).toContainEqual(
      expect.objectContaining({
        source: expect.stringMatching(/\/ssl\.conf$/),
        dest: '/etc/httpd/conf.d/ssl.conf',
      }),
    );
    expect(files[ConfigFiles.sslConf]).toContain('SSLProtocol');
    expect(files[ConfigFiles.sslConf]).not.toMatch(/VirtualHost|SSLCertificateFile/);
    expect(dbSync.command).toBe('placement-manage db sync');
  });

  it('is deterministic', () => {
    expect(renderConfigFiles(inputs)).toEqual(renderConfigFiles(inputs));
  });
});
