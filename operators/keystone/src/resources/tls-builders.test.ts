import { describe, expect, it } from 'vitest';
import { firstContainerOf, podSpecOf, sampleKeystoneAPI } from '../../test/fixtures.js';
import { resolveSpec } from '../config/spec.js';
import { configFiles, keystoneConfigData } from '../templates/config-files.js';
import { buildTrustFlushCronJob } from './cronjob.js';
import { buildKeystoneDeployment } from './deployment.js';
import { buildBootstrapJob, buildDbSyncJob } from './jobs.js';

type Json = Record<string, unknown>;
const images = { apiImage: 'img' };
const tls = {
  api: {
    internal: { secretName: 'cert-keystone-internal-svc' },
    public: { secretName: 'cert-keystone-public-svc' },
  },
  caBundleSecretName: 'combined-ca-bundle',
};
const caMount = {
  name: 'combined-ca-bundle',
  mountPath: '/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem',
  subPath: 'tls-ca-bundle.pem',
  readOnly: true,
};
const caVolume = {
  name: 'combined-ca-bundle',
  secret: { secretName: 'combined-ca-bundle', defaultMode: 0o444 },
};

describe('pod-level TLS (upstream layout)', () => {
  const cr = sampleKeystoneAPI({ tls });
  const spec = resolveSpec(cr, images);
  const input = { cr, spec, podAnnotations: {} };

  it('mounts the endpoint certificates and the CA bundle into the API pods and probes over https', () => {
    const d = buildKeystoneDeployment(cr, spec, 'h', {}) as Json;
    const volumes = podSpecOf(d)['volumes'] as Json[];
    expect(volumes).toContainEqual(caVolume);
    expect(volumes).toContainEqual({
      name: 'internal-tls-certs',
      secret: { secretName: 'cert-keystone-internal-svc', defaultMode: 0o400 },
    });
    expect(volumes).toContainEqual({
      name: 'public-tls-certs',
      secret: { secretName: 'cert-keystone-public-svc', defaultMode: 0o400 },
    });
    const mounts = (firstContainerOf(d)['volumeMounts'] as Json[]).map(
      (m) => `${m['name']}:${m['mountPath']}`,
    );
    expect(mounts).toEqual(
      expect.arrayContaining([
        'combined-ca-bundle:/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem',
        'internal-tls-certs:/var/lib/config-data/tls/certs/internal.crt',
        'internal-tls-certs:/var/lib/config-data/tls/private/internal.key',
        'public-tls-certs:/var/lib/config-data/tls/certs/public.crt',
        'public-tls-certs:/var/lib/config-data/tls/private/public.key',
      ]),
    );
    expect((firstContainerOf(d)['readinessProbe'] as { httpGet: Json }).httpGet['scheme']).toBe('HTTPS');
    expect((firstContainerOf(d)['livenessProbe'] as { httpGet: Json }).httpGet['scheme']).toBe('HTTPS');
  });

  it('mounts the CA bundle (only) into the db-sync, bootstrap and trust-flush pods', () => {
    const endpoints = { internal: 'https://i', public: 'https://p' };
    for (const obj of [
      buildDbSyncJob(input),
      buildBootstrapJob(input, endpoints),
      buildTrustFlushCronJob(cr, spec, {}),
    ] as Json[]) {
      expect(podSpecOf(obj)['volumes']).toContainEqual(caVolume);
      expect(firstContainerOf(obj)['volumeMounts']).toContainEqual(caMount);
      expect(JSON.stringify(podSpecOf(obj))).not.toContain('tls-certs');
    }
  });

  it('renders an https vhost per endpoint with the files kolla copies from the mounts', () => {
    const files = configFiles(
      spec,
      keystoneConfigData(cr, spec, { databaseHostname: 'db', databasePassword: 'p', memcachedServers: '' }),
    );
    const httpd = files['httpd.conf'] ?? '';
    for (const ep of ['internal', 'public']) {
      expect(httpd).toContain(`SSLCertificateFile      "/etc/pki/tls/certs/${ep}.crt"`);
      expect(httpd).toContain(`SSLCertificateKeyFile   "/etc/pki/tls/private/${ep}.key"`);
    }
    expect(httpd.match(/SSLEngine on/g)).toHaveLength(2);
    const kolla = JSON.parse(files['keystone-api-config.json'] ?? '{}') as {
      config_files: { source: string; dest: string }[];
    };
    expect(kolla.config_files).toContainEqual(
      expect.objectContaining({ source: '/var/lib/config-data/tls/certs/*', dest: '/etc/pki/tls/certs/' }),
    );
    expect(kolla.config_files).toContainEqual(
      expect.objectContaining({
        source: '/var/lib/config-data/tls/private/*',
        dest: '/etc/pki/tls/private/',
      }),
    );
  });

  it('turns TLS on per endpoint: only public here, internal stays http', () => {
    const one = sampleKeystoneAPI({ tls: { api: { public: { secretName: 'pub' } } } });
    const s = resolveSpec(one, images);
    const httpd =
      configFiles(
        s,
        keystoneConfigData(one, s, { databaseHostname: 'db', databasePassword: 'p', memcachedServers: '' }),
      )['httpd.conf'] ?? '';
    const [internal, pub] = httpd.split('# public vhost');
    expect(internal).not.toContain('SSLEngine');
    expect(pub).toContain('SSLEngine on');
    const d = buildKeystoneDeployment(one, s, 'h', {}) as Json;
    expect(JSON.stringify(podSpecOf(d))).not.toContain('combined-ca-bundle');
  });

  it('renders no TLS at all without tls', () => {
    const plain = sampleKeystoneAPI({});
    const s = resolveSpec(plain, images);
    const d = buildKeystoneDeployment(plain, s, 'h', {}) as Json;
    expect(JSON.stringify(d)).not.toMatch(/tls-certs|combined-ca-bundle|HTTPS/);
  });

  it('my.cnf turns TLS to the database on only when the database supports it and a CA bundle is mounted', () => {
    const data = (databaseTls: boolean) =>
      configFiles(
        spec,
        keystoneConfigData(cr, spec, {
          databaseHostname: 'db',
          databasePassword: 'p',
          memcachedServers: '',
          databaseTls,
          databaseUser: 'keystone_ab12',
        }),
      );
    expect(data(true)['my.cnf']).toBe(
      '[client]\nssl-ca=/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem\nssl=1',
    );
    expect(data(false)['my.cnf']).toBe('[client]\nssl=0');
    expect(data(true)['keystone.conf']).toContain('mysql+pymysql://keystone_ab12:p@db/keystone');
  });
});
