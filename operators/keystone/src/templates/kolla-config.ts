import { kollaTlsConfigFiles } from '@stackops/lib-common/openstack';

/**
 * What kolla_start copies where before it runs httpd (the API pod's config.json): the config
 * files, the TLS certificates and keys (when mounted), the httpdCustomization files and the
 * federation realm files, at upstream's destinations.
 */
export function keystoneApiKollaConfig(): string {
  const file = (source: string, dest: string, perm = '0600', optional = false) => ({
    source,
    dest,
    owner: 'keystone',
    perm,
    ...(optional ? { optional: true } : {}),
  });
  return JSON.stringify(
    {
      command: '/usr/sbin/httpd -DFOREGROUND',
      config_files: [
        file('/var/lib/config-data/default/keystone.conf', '/etc/keystone/keystone.conf'),
        file('/var/lib/config-data/default/custom.conf', '/etc/keystone/keystone.conf.d/custom.conf'),
        {
          ...file('/var/lib/config-data/default/httpd.conf', '/etc/httpd/conf/httpd.conf', '0644'),
          owner: 'apache',
        },
        {
          ...file('/var/lib/config-data/default/ssl.conf', '/etc/httpd/conf.d/ssl.conf', '0644'),
          owner: 'apache',
        },
        ...kollaTlsConfigFiles('keystone:apache'),
        // the Memcached mTLS client certificate, when mounted (as upstream: root:keystone)
        ...['certs', 'private'].map((dir) => ({
          source: `/var/lib/config-data/mtls/${dir}/*`,
          dest: `/etc/pki/tls/${dir}/`,
          owner: 'root:keystone',
          perm: '0640',
          optional: true,
          merge: true,
        })),
        file('/var/lib/config-data/default/my.cnf', '/etc/my.cnf', '0644'),
        {
          ...file('/var/lib/config-data/default/httpd_custom_*', '/etc/httpd/conf/', '0444', true),
          owner: 'keystone:apache',
        },
        {
          ...file(
            '/var/lib/config-data/default/multirealm-federation/*',
            '/var/lib/httpd/metadata/',
            '0640',
            true,
          ),
          owner: 'keystone:apache',
          merge: true,
        },
      ],
      // httpd runs as keystone: its pid file goes to /etc/httpd/run (/run/httpd, root's in the image).
      permissions: [
        { path: '/etc/keystone', owner: 'keystone:keystone', recurse: true },
        { path: '/etc/httpd/run/', owner: 'keystone:apache', recurse: true },
      ],
    },
    null,
    2,
  );
}
