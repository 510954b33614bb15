import type { KindRef } from '@stackops/lib-common/client';
import {
  KeystoneAPIKind,
  KeystoneApplicationCredentialKind,
  KeystoneEndpointKind,
  KeystoneServiceKind,
  NetworkAddonsConfigKind,
  PlacementAPIKind,
  SIPClusterKind,
} from './targets.js';

/** The CRD that serves a kind: `<plural>.<group>`. */
export const crdName = (kind: KindRef): string => `${kind.plural}.${kind.group}`;

/**
 * Every kind this project's charts define (their `crds/` folders), in the order their custom
 * resources must go while the operators still run: a PlacementAPI deletes its KeystoneService and
 * KeystoneEndpoint, whose finalizers keystone-operator releases after deregistering them from
 * Keystone, which needs the KeystoneAPI; so KeystoneAPIs go last of the OpenStack kinds. An
 * application credential is revoked as its service user, so it goes before the KeystoneServices
 * (and after the PlacementAPIs that hold its Secret).
 */
export const stackopsKinds: readonly KindRef[] = [
  PlacementAPIKind,
  KeystoneApplicationCredentialKind,
  KeystoneEndpointKind,
  KeystoneServiceKind,
  KeystoneAPIKind,
  SIPClusterKind,
  NetworkAddonsConfigKind,
];

/**
 * This project's CRDs, exactly, by name. The groups are upstream's (so upstream manifests apply),
 * and other products share them (kubevirt.io, openstack.org, metal3.io): never select CRDs by group.
 */
export const stackopsCrds: readonly string[] = stackopsKinds.map(crdName);

/**
 * metal3's BareMetalHost CRD, which the SIP chart installs only with `installBareMetalHostCRD=true`
 * (for clusters without metal3) and keeps on uninstall: deleting it deletes every host.
 */
export const bareMetalHostCrd = 'baremetalhosts.metal3.io';

/** The finalizers this project's operators put on custom resources (names are upstream's). */
const ourFinalizers = [
  /^openstack\.org\/keystoneapi$/,
  /^openstack\.org\/keystoneservice(-.+)?$/,
  /^openstack\.org\/keystoneendpoint(-.+)?$/,
  /^openstack\.org\/applicationcredential$/,
  /^openstack\.org\/placementapi$/,
  /^sip\.airship\.airshipit\.org\/finalizer$/,
];

export const isOurFinalizer = (finalizer: string): boolean => ourFinalizers.some((re) => re.test(finalizer));
