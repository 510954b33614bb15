import { describe, expect, it } from 'vitest';
import { firstContainerOf, sampleKeystoneAPI } from '../../test/fixtures.js';
import { resolveSpec } from '../config/spec.js';
import { configFiles, keystoneConfigData } from '../templates/config-files.js';
import { buildCloudConfigMap } from './cloud-config.js';
import { buildTrustFlushCronJob } from './cronjob.js';
import { buildKeystoneDeployment } from './deployment.js';
import { buildBootstrapJob, buildDbSyncJob } from './jobs.js';

type Json = Record<string, unknown>;
const images = { apiImage: 'default-image' };
const envOf = (obj: Json) => firstContainerOf(obj)['env'] as { name: string; value?: string }[];
const files = (spec: Partial<Parameters<typeof sampleKeystoneAPI>[0]>) => {
  const cr = sampleKeystoneAPI(spec);
  const s = resolveSpec(cr, images);
  return configFiles(
    s,
    keystoneConfigData(cr, s, { databaseHostname: 'db', databasePassword: 'p', memcachedServers: '' }),
  );
};

describe('KeystoneAPI spec fields reach what they configure', () => {
  it('containerImage is the image of every container; empty takes the operator default', () => {
    const cr = sampleKeystoneAPI({ containerImage: 'registry.example/keystone:1' });
    const s = resolveSpec(cr, images);
    const input = { cr, spec: s, podAnnotations: {} };
    for (const obj of [
      buildKeystoneDeployment(cr, s, 'h', {}),
      buildDbSyncJob(input),
      buildBootstrapJob(input, { internal: 'i', public: 'p' }),
      buildTrustFlushCronJob(cr, s, {}),
    ] as Json[])
      expect(firstContainerOf(obj)['image']).toBe('registry.example/keystone:1');
    expect(resolveSpec(sampleKeystoneAPI({ containerImage: '' }), images).containerImage).toBe(
      'default-image',
    );
  });

  it('region, adminUser and adminProject go to bootstrap and clouds.yaml', async () => {
    const cr = sampleKeystoneAPI({ region: 'regionTwo', adminUser: 'root', adminProject: 'ops' });
    const s = resolveSpec(cr, images);
    const env = envOf(
      buildBootstrapJob({ cr, spec: s, podAnnotations: {} }, { internal: 'i', public: 'p' }) as Json,
    );
    expect(env).toEqual(
      expect.arrayContaining([
        { name: 'OS_BOOTSTRAP_REGION_ID', value: 'regionTwo' },
        { name: 'OS_BOOTSTRAP_USERNAME', value: 'root' },
        { name: 'OS_BOOTSTRAP_PROJECT_NAME', value: 'ops' },
      ]),
    );
    const clouds = (
      (await buildCloudConfigMap({ cr, spec: s, publicURL: 'http://p', adminPassword: 'x' })) as Json
    )['data'] as Json;
    expect(clouds['clouds.yaml']).toMatch(
      /project_name: ops[\s\S]*username: root|username: root[\s\S]*project_name: ops/,
    );
    expect(clouds['clouds.yaml']).toContain('region_name: regionTwo');
  });

  it('trustFlushArgs, trustFlushSchedule and trustFlushSuspend shape the keystone-cron CronJob', () => {
    const cr = sampleKeystoneAPI({
      trustFlushArgs: '--date 2026-01-01',
      trustFlushSchedule: '5 4 * * *',
      trustFlushSuspend: true,
    });
    const cron = buildTrustFlushCronJob(cr, resolveSpec(cr, images), {}) as Json;
    expect((cron['spec'] as Json)['schedule']).toBe('5 4 * * *');
    expect((cron['spec'] as Json)['suspend']).toBe(true);
    expect(firstContainerOf(cron)['command']).toEqual([
      'keystone-manage',
      'trust_flush',
      '--date',
      '2026-01-01',
    ]);
  });

  it('enableSecureRBAC false turns enforce_scope and enforce_new_defaults off', () => {
    const conf = files({ enableSecureRBAC: false })['keystone.conf'];
    expect(conf).toContain('enforce_new_defaults=false');
    expect(conf).toContain('enforce_scope=false');
  });

  it('apiTimeout and httpdCustomization.processNumber reach every vhost', () => {
    const httpd = files({ apiTimeout: 120, httpdCustomization: { processNumber: 7 } })['httpd.conf'] ?? '';
    expect(httpd.match(/TimeOut 120/g)).toHaveLength(2);
    expect(httpd.match(/processes=7 threads=1/g)).toHaveLength(2);
  });

  it('customServiceConfig becomes custom.conf and defaultConfigOverwrite adds files', () => {
    const f = files({
      customServiceConfig: '[DEFAULT]\ndebug=true',
      defaultConfigOverwrite: { 'policy.yaml': 'a: b' },
    });
    expect(f['custom.conf']).toBe('[DEFAULT]\ndebug=true');
    expect(f['policy.yaml']).toBe('a: b');
  });

  it('databaseAccount is the SQL user of the connection URL (dashes as underscores)', () => {
    expect(files({ databaseAccount: 'keystone-2' })['keystone.conf']).toContain(
      'connection=mysql+pymysql://keystone_2:p@db/keystone',
    );
  });

  it('passwordSelectors.admin names the key bootstrap reads the admin password from', () => {
    const cr = sampleKeystoneAPI({ passwordSelectors: { admin: 'KeystoneAdmin', database: 'KsDb' } });
    const s = resolveSpec(cr, images);
    expect(
      envOf(buildBootstrapJob({ cr, spec: s, podAnnotations: {} }, { internal: 'i', public: 'p' }) as Json),
    ).toContainEqual({
      name: 'OS_BOOTSTRAP_PASSWORD',
      valueFrom: { secretKeyRef: { name: 'osp-secret', key: 'KeystoneAdmin' } },
    });
    expect(s.passwordSelectors.database).toBe('KsDb');
  });

  it('resources are the keystone-api container resources', () => {
    const resources = { requests: { cpu: '1', memory: '500Mi' }, limits: { memory: '1Gi' } };
    const cr = sampleKeystoneAPI({ resources });
    expect(
      firstContainerOf(buildKeystoneDeployment(cr, resolveSpec(cr, images), 'h', {}) as Json)['resources'],
    ).toEqual(resources);
  });

  it("[cache] is upstream's: dogpile with inet-prefixed servers, or oslo_cache.memcache_pool when the Memcached serves TLS", () => {
    const cr = sampleKeystoneAPI({});
    const s = resolveSpec(cr, images);
    const conf = (memcachedTls: boolean) =>
      configFiles(
        s,
        keystoneConfigData(cr, s, {
          databaseHostname: 'db',
          databasePassword: 'p',
          memcachedServers: 'm-0.m:11211',
          memcachedServersWithInet: 'inet:[m-0.m]:11211',
          memcachedTls,
        }),
      )['keystone.conf'] ?? '';
    expect(conf(false)).toContain('backend = dogpile.cache.memcached\nmemcache_servers=inet:[m-0.m]:11211\n');
    expect(conf(false)).toContain('tls_enabled=false');
    expect(conf(true)).toContain('backend = oslo_cache.memcache_pool\nmemcache_servers=m-0.m:11211\n');
    expect(conf(true)).toContain('tls_enabled=true');
  });
});
