/** API group, version and the names upstream placement-operator uses for what it creates. */
export const PLACEMENT_GROUP = 'placement.openstack.org';
export const PLACEMENT_VERSION = 'v1beta1';
export const PLACEMENT_API_KIND = 'PlacementAPI';
export const PLACEMENT_API_PLURAL = 'placementapis';

/** Finalizer on the PlacementAPI and on every object it consumes (KeystoneService/Endpoint, database). */
export const PLACEMENT_API_FINALIZER = 'openstack.org/placementapi';

/** Keystone service name/type, Service name prefix and label value (a constant, not the CR name). */
export const PLACEMENT_SERVICE_NAME = 'placement';
export const PLACEMENT_SERVICE_TYPE = 'placement';
export const PLACEMENT_SERVICE_DESCRIPTION = 'Placement Service';
export const PLACEMENT_API_PORT = 8778;
/** uid of the placement user in upstream's images; the pods run as it. */
export const PLACEMENT_UID = 42482;
/** The database name inside the MariaDB instance. */
export const PLACEMENT_DATABASE_NAME = 'placement';

/** Image used when `spec.containerImage` is empty and RELATED_IMAGE_PLACEMENT_API_IMAGE_URL_DEFAULT is unset. */
export const PLACEMENT_API_DEFAULT_IMAGE =
  'quay.io/podified-antelope-centos9/openstack-placement-api:current-podified';
export const PLACEMENT_API_IMAGE_ENV = 'RELATED_IMAGE_PLACEMENT_API_IMAGE_URL_DEFAULT';

/** Keys of `status.hash`. */
export const HASH_INPUT = 'input';
export const HASH_DBSYNC = 'dbsync';

/** The only file `defaultConfigOverwrite` may carry. */
export const ALLOWED_CONFIG_OVERWRITE_KEYS = ['policy.yaml'] as const;
