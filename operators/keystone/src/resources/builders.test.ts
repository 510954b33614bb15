import { describe, expect, it } from 'vitest';
import { sampleKeystoneAPI } from '../../test/fixtures.js';
import { resolveSpec } from '../config/spec.js';
import { configFiles, keystoneConfigData } from '../templates/config-files.js';
import { buildCloudConfigMap, buildCloudConfigSecret } from './cloud-config.js';
import { buildKeystoneDeployment } from './deployment.js';
import { buildBootstrapJob, buildDbSyncJob } from './jobs.js';
import { buildKeystoneService, effectiveOverride } from './services.js';

const images = { apiImage: 'default-image' };

describe('resolveSpec', () => {
  it('fills upstream defaults and merges the misspelt networkAttachents', () => {
    const s = resolveSpec(sampleKeystoneAPI({ containerImage: '', networkAttachents: ['storage'] }), images);
    expect(s).toMatchObject({
      containerImage: 'default-image',
      databaseInstance: 'openstack',
      databaseAccount: 'keystone',
      region: 'regionOne',
      fernetMaxActiveKeys: 5,
      passwordSelectors: { admin: 'AdminPassword', database: 'KeystoneDatabasePassword' },
      networkAttachments: ['storage'],
    });
  });
});

describe('config files', () => {
  const cr = sampleKeystoneAPI({ customServiceConfig: '[DEFAULT]\ndebug = true\nregion = {{ .Region }}' });
  const spec = resolveSpec(cr, images);
  const data = keystoneConfigData(cr, spec, {
    databaseHostname: 'openstack.openstack.svc',
    databasePassword: 'p@ss',
    memcachedServers: 'memcached.openstack.svc:11211',
  });
  const files = configFiles({ ...spec, defaultConfigOverwrite: { 'policy.yaml': 'x: y' } }, data);

  it('renders keystone.conf with the database, cache, policy and fernet settings', () => {
    const conf = files['keystone.conf'];
    expect(conf).toContain(
      'connection=mysql+pymysql://keystone:p%40ss@openstack.openstack.svc/keystone?read_default_file=/etc/my.cnf',
    );
    expect(conf).toContain('memcache_servers=memcached.openstack.svc:11211\n');
    expect(conf).toContain('enforce_scope=true');
    expect(conf).toContain('max_active_keys=5');
  });

  it('renders one vhost per endpoint and the custom, my.cnf and overwrite files', () => {
    expect(files['httpd.conf']).toContain('ServerName keystone-internal.openstack.svc');
    expect(files['httpd.conf']).toContain('ServerName keystone-public.openstack.svc');
    expect(files['httpd.conf']).toContain('processes=3 threads=1');
    expect(files['custom.conf']).toBe('[DEFAULT]\ndebug = true\nregion = regionOne');
    expect(files['my.cnf']).toBe('[client]\nssl=0');
    expect(files['policy.yaml']).toBe('x: y');
  });

  it("ships ssl.conf over mod_ssl's, whose default vhost needs a certificate no container has", () => {
    expect(files['ssl.conf']).toContain('SSLProtocol all -SSLv2 -SSLv3 -TLSv1 -TLSv1.1');
    expect(files['ssl.conf']).not.toMatch(/VirtualHost|SSLCertificateFile|Listen/);
    const kolla = JSON.parse(files['keystone-api-config.json'] ?? '{}') as {
      config_files: { source: string; dest: string }[];
    };
    expect(kolla.config_files).toContainEqual(
      expect.objectContaining({
        source: '/var/lib/config-data/default/ssl.conf',
        dest: '/etc/httpd/conf.d/ssl.conf',
      }),
    );
  });

  it('lets httpd, running as keystone, write its pid file under /etc/httpd/run', () => {
    const kolla = JSON.parse(files['keystone-api-config.json'] ?? '{}') as {
      permissions: { path: string; owner: string }[];
    };
    expect(kolla.permissions).toContainEqual(
      expect.objectContaining({ path: '/etc/httpd/run/', owner: 'keystone:apache' }),
    );
  });

  it('turns caching off without memcached', () => {
    const off = configFiles(spec, { ...data, memcachedServers: '' });
    expect(off['keystone.conf']).toContain('[cache]\nenabled=false\n');
  });
});

describe('services', () => {
  it('maps the README externalEndpoints form to a MetalLB LoadBalancer', () => {
    const cr = sampleKeystoneAPI({
      externalEndpoints: [
        {
          endpoint: 'internal',
          ipAddressPool: 'osp-internalapi',
          loadBalancerIPs: ['172.17.0.202'],
          sharedIP: true,
          sharedIPKey: '',
        },
      ],
    });
    const svc = buildKeystoneService(cr, 'internal');
    expect(svc['spec']).toMatchObject({
      type: 'LoadBalancer',
      ports: [{ name: 'keystone-internal', port: 5000 }],
    });
    expect(svc.metadata.annotations).toEqual({
      endpoint: 'internal',
      'core.openstack.org/ingress_create': 'false',
      'dnsmasq.network.openstack.org/hostname': 'keystone-internal.openstack.svc',
      'metallb.universe.tf/address-pool': 'osp-internalapi',
      'metallb.universe.tf/allow-shared-ip': 'osp-internalapi',
      'metallb.universe.tf/loadBalancerIPs': '172.17.0.202',
    });
    expect(buildKeystoneService(cr, 'public').metadata.annotations).toMatchObject({
      'core.openstack.org/ingress_create': 'true',
    });
  });

  it('lets override.service win over externalEndpoints', () => {
    const cr = sampleKeystoneAPI({
      externalEndpoints: [{ endpoint: 'internal', ipAddressPool: 'pool', sharedIP: false }],
      override: { service: { internal: { spec: { type: 'ClusterIP' }, endpointURL: 'http://x' } } },
    });
    expect(effectiveOverride(cr, 'internal')).toEqual({
      metadata: { labels: {}, annotations: { 'metallb.universe.tf/address-pool': 'pool' } },
      spec: { type: 'ClusterIP' },
      endpointURL: 'http://x',
    });
  });
});

describe('pods', () => {
  const cr = sampleKeystoneAPI({ nodeSelector: { role: 'ctl' } });
  const spec = resolveSpec(cr, images);
  const ann = { 'k8s.v1.cni.cncf.io/networks': '[]' };

  it('Deployment keystone carries CONFIG_HASH, probes, a preStop pause, spread and the fernet items', () => {
    const d = buildKeystoneDeployment(cr, spec, 'h1', ann) as unknown as {
      spec: { template: { spec: Record<string, unknown> } };
    };
    const pod = d.spec.template.spec;
    const c = (pod['containers'] as Record<string, unknown>[])[0]!;
    expect(c['env']).toContainEqual({ name: 'CONFIG_HASH', value: 'h1' });
    expect(c['readinessProbe']).toMatchObject({ httpGet: { path: '/v3', port: 5000 } });
    expect(c['lifecycle']).toEqual({ preStop: { exec: { command: ['/bin/sleep', '5'] } } });
    expect(pod['nodeSelector']).toEqual({ role: 'ctl' });
    expect(pod['serviceAccountName']).toBe('keystone-keystone');
    expect(JSON.stringify(pod['affinity'])).toContain('"values":["keystone"]');
    const fernet = (pod['volumes'] as { name: string; secret: { items: unknown[] } }[]).find(
      (v) => v.name === 'fernet-keys',
    );
    expect(fernet?.secret.items).toHaveLength(5);
  });

  it('keystone-api runs as keystone and may escalate through sudo (kolla_start copies its config as root)', () => {
    const d = buildKeystoneDeployment(cr, spec, 'h1', ann) as unknown as {
      spec: { template: { spec: { containers: { securityContext: Record<string, unknown> }[] } } };
    };
    const sc = d.spec.template.spec.containers[0]!.securityContext;
    expect(sc).toMatchObject({ runAsUser: 42425, runAsGroup: 42425, capabilities: { drop: ['MKNOD'] } });
    expect(sc['allowPrivilegeEscalation']).not.toBe(false);
  });

  it('bootstrap Job takes the admin password from the selector and the endpoints from status', () => {
    const job = buildBootstrapJob(
      { cr, spec, podAnnotations: ann },
      { internal: 'http://i', public: 'http://p' },
    );
    const env = (job.spec!.template!.spec!['containers'] as { env: unknown[] }[])[0]!.env;
    expect(env).toContainEqual({
      name: 'OS_BOOTSTRAP_PASSWORD',
      valueFrom: { secretKeyRef: { name: 'osp-secret', key: 'AdminPassword' } },
    });
    expect(env).toContainEqual({ name: 'OS_BOOTSTRAP_PUBLIC_URL', value: 'http://p' });
    expect(buildDbSyncJob({ cr, spec, podAnnotations: ann }).metadata.name).toBe('keystone-db-sync');
  });
});

describe('cloud config', () => {
  it('writes clouds.yaml without the password and a quoted cloudrc with it', async () => {
    const cr = sampleKeystoneAPI();
    const input = {
      cr,
      spec: resolveSpec(cr, images),
      publicURL: 'http://keystone-public.openstack.svc:5000',
      adminPassword: "a'b",
    };
    const cm = (await buildCloudConfigMap(input)) as unknown as { data: Record<string, string> };
    expect(cm.data['clouds.yaml']).toContain('auth_url: http://keystone-public.openstack.svc:5000');
    expect(cm.data['clouds.yaml']).not.toContain("a'b");
    const secret = (await buildCloudConfigSecret(input)) as unknown as { data: Record<string, string> };
    const rc = Buffer.from(secret.data['cloudrc']!, 'base64').toString();
    expect(rc).toContain(`export OS_PASSWORD='a'\\''b'`);
  });
});
