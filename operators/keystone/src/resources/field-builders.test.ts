import { describe, expect, it } from 'vitest';
import { podSpecOf, sampleKeystoneAPI } from '../../test/fixtures.js';
import { resolveSpec } from '../config/spec.js';
import { configFiles, keystoneConfigData } from '../templates/config-files.js';
import { buildTrustFlushCronJob } from './cronjob.js';
import { buildKeystoneDeployment } from './deployment.js';
import { FederationConfigError, federationFiles } from './federation.js';
import { buildBootstrapJob, buildDbSyncJob } from './jobs.js';

type Json = Record<string, unknown>;
const images = { apiImage: 'img' };
const mountsOf = (obj: Json) =>
  (((podSpecOf(obj)['containers'] as Json[])[0] as Json)['volumeMounts'] as Json[]).map(
    (m) => `${m['name']}:${m['mountPath']}`,
  );

describe('extraMounts', () => {
  const vol = (name: string) => ({ name, configMap: { name } });
  const mnt = (name: string, path: string) => ({ name, mountPath: path, readOnly: true });
  const cr = sampleKeystoneAPI({
    extraMounts: [
      {
        name: 'ldap',
        extraVol: [
          { volumes: [vol('everywhere')], mounts: [mnt('everywhere', '/etc/keystone/domains')] },
          {
            propagation: ['Keystone'],
            volumes: [vol('api-only')],
            mounts: [mnt('api-only', '/etc/httpd/conf_custom')],
          },
          { propagation: ['All'], volumes: [vol('all')], mounts: [mnt('all', '/var/lib/all')] },
          { propagation: ['DBSync'], volumes: [vol('dbsync')], mounts: [mnt('dbsync', '/var/lib/dbsync')] },
        ],
      },
    ],
  });
  const spec = resolveSpec(cr, images);

  it('extraMounts: mounts volumes with no propagation, Keystone or All into the API pods only', () => {
    const d = buildKeystoneDeployment(cr, spec, 'h', {}) as Json;
    const names = (podSpecOf(d)['volumes'] as Json[]).map((v) => v['name']);
    expect(names).toEqual(expect.arrayContaining(['everywhere', 'api-only', 'all']));
    expect(names).not.toContain('dbsync');
    expect(mountsOf(d)).toEqual(
      expect.arrayContaining([
        'everywhere:/etc/keystone/domains',
        'api-only:/etc/httpd/conf_custom',
        'all:/var/lib/all',
      ]),
    );
    const input = { cr, spec, podAnnotations: {} };
    for (const other of [
      buildDbSyncJob(input),
      buildBootstrapJob(input, { internal: 'i', public: 'p' }),
      buildTrustFlushCronJob(cr, spec, {}),
    ] as Json[])
      expect(JSON.stringify(podSpecOf(other))).not.toMatch(/everywhere|api-only|"all"|dbsync/);
  });
});

describe('httpdCustomization.customConfigSecret', () => {
  it('customConfigSecret: each key becomes httpd_custom_<endpoint>_<key>, included in each vhost and copied by kolla', () => {
    const cr = sampleKeystoneAPI({
      httpdCustomization: { processNumber: 3, customConfigSecret: 'httpd-overrides' },
    });
    const spec = resolveSpec(cr, images);
    const files = configFiles(
      spec,
      keystoneConfigData(cr, spec, {
        databaseHostname: 'db',
        databasePassword: 'p',
        memcachedServers: '',
        httpdCustomFiles: {
          'timeout.conf': 'TimeOut {{ .TimeOut }}',
          'oidc.conf': 'OIDCProviderMetadataURL x',
          empty: '',
        },
      }),
    );
    expect(files['httpd_custom_internal_oidc.conf']).toBe('OIDCProviderMetadataURL x');
    expect(files['httpd_custom_public_timeout.conf']).toBe('TimeOut 60');
    expect(Object.keys(files).filter((f) => f.startsWith('httpd_custom_'))).toHaveLength(4);
    const httpd = files['httpd.conf'] ?? '';
    expect(httpd).toContain('Include conf/httpd_custom_internal_*');
    expect(httpd).toContain('Include conf/httpd_custom_public_*');
    const kolla = JSON.parse(files['keystone-api-config.json'] ?? '{}') as { config_files: Json[] };
    expect(kolla.config_files).toContainEqual(
      expect.objectContaining({
        source: '/var/lib/config-data/default/httpd_custom_*',
        dest: '/etc/httpd/conf/',
      }),
    );
  });

  it('without customConfigSecret no vhost includes custom files', () => {
    const cr = sampleKeystoneAPI({});
    const spec = resolveSpec(cr, images);
    const files = configFiles(
      spec,
      keystoneConfigData(cr, spec, { databaseHostname: 'db', databasePassword: 'p', memcachedServers: '' }),
    );
    expect(files['httpd.conf']).not.toContain('httpd_custom_');
    expect(files['httpd.conf']).toContain('IncludeOptional conf_custom/*.conf');
  });
});

describe('httpd.conf', () => {
  it('every WSGI process of each vhost loads Keystone when it starts, not on its first request', () => {
    const cr = sampleKeystoneAPI({ httpdCustomization: { processNumber: 2 } });
    const spec = resolveSpec(cr, images);
    const httpd =
      configFiles(
        spec,
        keystoneConfigData(cr, spec, { databaseHostname: 'db', databasePassword: 'p', memcachedServers: '' }),
      )['httpd.conf'] ?? '';
    expect(httpd.match(/^ {2}WSGIScriptAlias .*$/gm)).toEqual(
      ['internal', 'public'].map(
        (ep) =>
          `  WSGIScriptAlias / /usr/bin/keystone-wsgi-public process-group=${ep} application-group=%{GLOBAL}`,
      ),
    );
    for (const ep of ['internal', 'public'])
      expect(httpd).toContain(`WSGIDaemonProcess ${ep} processes=2 threads=1`);
  });
});

describe('federatedRealmConfig', () => {
  it('federatedRealmConfig: splits federation-config.json into sorted files mounted one by one under multirealm-federation', () => {
    const { filenames, data } = federationFiles(
      JSON.stringify({
        'b.example.com.provider': { issuer: 'b' },
        'a.example.com.client': { client_id: 'a' },
      }),
      'realms',
    );
    expect(filenames).toEqual(['a.example.com.client', 'b.example.com.provider']);
    expect(data).toEqual({
      '0': '{"client_id":"a"}',
      '1': '{"issuer":"b"}',
      '_filenames.json': '["a.example.com.client","b.example.com.provider"]',
    });
    const cr = sampleKeystoneAPI({ federatedRealmConfig: 'realms' });
    const d = buildKeystoneDeployment(cr, resolveSpec(cr, images), 'h', {}, filenames) as Json;
    expect(podSpecOf(d)['volumes']).toEqual(
      expect.arrayContaining([
        { name: 'federation-realm-dir', emptyDir: {} },
        {
          name: 'federation-realm-volume1',
          secret: { secretName: 'keystone-multirealm-federation-secret', defaultMode: 0o644 },
        },
      ]),
    );
    expect(mountsOf(d)).toEqual(
      expect.arrayContaining([
        'federation-realm-dir:/var/lib/config-data/default/multirealm-federation',
        'federation-realm-volume0:/var/lib/config-data/default/multirealm-federation/a.example.com.client',
        'federation-realm-volume1:/var/lib/config-data/default/multirealm-federation/b.example.com.provider',
      ]),
    );
  });

  it('refuses a federation-config.json that is not a JSON object of file names', () => {
    expect(() => federationFiles('[1]', 's')).toThrow(FederationConfigError);
    expect(() => federationFiles('{', 's')).toThrow(/not valid JSON/);
    expect(() => federationFiles('{"../x": 1}', 's')).toThrow(/not a file name/);
  });
});
