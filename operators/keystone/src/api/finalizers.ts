/** Finalizer names of the keystone kinds (upstream: "openstack.org/" + lower-cased kind). */
export const KeystoneFinalizers = {
  KeystoneAPI: 'openstack.org/keystoneapi',
  KeystoneService: 'openstack.org/keystoneservice',
  KeystoneEndpoint: 'openstack.org/keystoneendpoint',
} as const;

/** Put on the KeystoneAPI by a KeystoneService so keystone outlives the service's registration. */
export const serviceFinalizerOnApi = (serviceCrName: string): string =>
  `${KeystoneFinalizers.KeystoneService}-${serviceCrName}`;

/** Put on the KeystoneAPI and on the KeystoneService by a KeystoneEndpoint. */
export const endpointFinalizerOnParents = (endpointCrName: string): string =>
  `${KeystoneFinalizers.KeystoneEndpoint}-${endpointCrName}`;
