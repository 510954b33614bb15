import { kollaTlsConfigFiles } from '@stackops/lib-common/openstack';

/**
 * kolla_start reads /var/lib/kolla/config_files/config.json: which command to run and which files to
 * copy from the mounted config Secret into place (with owner and mode) first.
 */

/** Where the config Secret is mounted in every placement container. */
export const CONFIG_MOUNT_DIR = '/var/lib/openstack/config';

interface KollaFile {
  source: string;
  dest: string;
  owner: string;
  perm: string;
  optional?: boolean;
  merge?: boolean;
}

interface KollaConfig {
  command: string;
  config_files: KollaFile[];
  permissions: { path: string; owner: string; recurse: boolean }[];
}

const file = (name: string, dest: string, owner: string, perm: string, optional = false): KollaFile => ({
  source: `${CONFIG_MOUNT_DIR}/${name}`,
  dest,
  owner,
  perm,
  ...(optional ? { optional: true } : {}),
});

const serviceFiles = (): KollaFile[] => [
  file('placement.conf', '/etc/placement/placement.conf', 'placement', '0600'),
  file('custom.conf', '/etc/placement/placement.conf.d/custom.conf', 'placement', '0600'),
  file('policy.yaml', '/etc/placement/policy.yaml', 'placement', '0600', true),
  file('my.cnf', '/etc/my.cnf', 'placement', '0644'),
];

const logPermissions = [{ path: '/var/log/placement', owner: 'placement:apache', recurse: true }];

/** The API container: httpd in the foreground serving placement-api through mod_wsgi. */
export function apiKollaConfig(): KollaConfig {
  return {
    command: '/usr/sbin/httpd -DFOREGROUND',
    config_files: [
      ...serviceFiles(),
      file('httpd.conf', '/etc/httpd/conf/httpd.conf', 'apache', '0644'),
      // over mod_ssl's, whose default vhost names a certificate no container has
      file('ssl.conf', '/etc/httpd/conf.d/ssl.conf', 'apache', '0644'),
      // the endpoint certificates, when mounted, where the vhosts read them
      ...(kollaTlsConfigFiles('placement') as unknown as KollaFile[]),
    ],
    permissions: [...logPermissions, { path: '/etc/httpd/run/', owner: 'placement:apache', recurse: true }],
  };
}

/** The db-sync Job: creates/upgrades the placement schema. */
export function dbSyncKollaConfig(): KollaConfig {
  return {
    command: 'placement-manage db sync',
    config_files: serviceFiles(),
    permissions: logPermissions,
  };
}
