import type { KindRef } from '@stackops/lib-common/client';

/** The upstream API group and version, kept so upstream manifests apply unchanged. */
export const GROUP = 'keystone.openstack.org';
export const VERSION = 'v1beta1';
export const API_VERSION = `${GROUP}/${VERSION}`;

const kindRef = (kind: string, plural: string): KindRef => ({
  group: GROUP,
  version: VERSION,
  kind,
  plural,
  namespaced: true,
});

/** How to address the three keystone kinds over REST. */
export const KeystoneKinds = {
  KeystoneAPI: kindRef('KeystoneAPI', 'keystoneapis'),
  KeystoneService: kindRef('KeystoneService', 'keystoneservices'),
  KeystoneEndpoint: kindRef('KeystoneEndpoint', 'keystoneendpoints'),
} as const satisfies Record<string, KindRef>;
