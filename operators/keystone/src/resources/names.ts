import type { KeystoneAPI } from '../api/keystone-api.js';

/**
 * Names of what a KeystoneAPI creates. Upstream's choices are kept: some are constants (one
 * KeystoneAPI per namespace), some derive from the CR name.
 */
const KEYSTONE = 'keystone';
export const KeystoneNames = {
  /** Deployment (constant upstream). */
  deployment: KEYSTONE,
  /** Fernet and credential keys (constant upstream). */
  fernetSecret: KEYSTONE,
  dbSyncJob: 'keystone-db-sync',
  bootstrapJob: 'keystone-bootstrap',
  cronJob: 'keystone-cron',
  cloudConfigMap: 'openstack-config',
  cloudConfigSecret: 'openstack-config-secret',
  configSecret: (cr: KeystoneAPI) => `${cr.metadata.name}-config-data`,
  /** Upstream's (empty for keystone) scripts Secret, mounted at /usr/local/bin/container-scripts. */
  scriptsSecret: (cr: KeystoneAPI) => `${cr.metadata.name}-scripts`,
  dbCreateJob: (cr: KeystoneAPI) => `${cr.metadata.name}-db-create`,
  /** infra-operator TransportURL for notifications (upstream's name). */
  transportUrl: (cr: KeystoneAPI) => `${cr.metadata.name}-keystone-transport`,
  /** ServiceAccount; the Role and RoleBinding add `-role` / `-rolebinding`. */
  serviceAccount: (cr: KeystoneAPI) => `keystone-${cr.metadata.name}`,
  /** `<cr>-public`, `<cr>-internal`. */
  serviceBase: (cr: KeystoneAPI) => cr.metadata.name ?? KEYSTONE,
} as const;

/** The port keystone listens on and its Services expose. */
export const KEYSTONE_PORT = 5000;
/** The database keystone's tables live in. */
export const KEYSTONE_DATABASE = 'keystone';
/** The fernet/credential rotation annotation on the keys Secret. */
export const ROTATED_AT_ANNOTATION = 'keystone.openstack.org/rotatedat';
/** Kolla images run keystone as this user. */
export const KEYSTONE_UID = 42425;

/** Pod labels and selector: `{service: keystone, owner: <cr>}`. */
export const keystoneServiceLabels = (cr: KeystoneAPI): Record<string, string> => ({
  service: KEYSTONE,
  owner: cr.metadata.name ?? '',
});

/** Labels of config objects (upstream `GetLabels(cr, "keystone.openstack.org")`). */
export const keystoneGroupLabels = (cr: KeystoneAPI): Record<string, string> => ({
  'keystone.openstack.org/uid': cr.metadata.uid ?? '',
  'keystone.openstack.org/namespace': cr.metadata.namespace ?? '',
  'keystone.openstack.org/name': cr.metadata.name ?? '',
});
