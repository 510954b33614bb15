import type { KindRef } from '@stackops/lib-common/client';

/** A custom resource the demo creates and waits for, and the condition that means "done". */
export interface DemoTarget {
  /** Short label in progress lines and the summary. */
  label: string;
  kind: KindRef;
  namespace?: string;
  name: string;
  /** `Ready` for the OpenStack and SIP operators, `Available` for network-addons. */
  doneCondition: 'Ready' | 'Available';
}

const kind = (group: string, version: string, k: string, plural: string, namespaced = true): KindRef => ({
  group,
  version,
  kind: k,
  plural,
  namespaced,
});

/** keystone-operator's kinds (all keystone.openstack.org/v1beta1). */
const keystoneKind = (k: string, plural: string): KindRef =>
  kind('keystone.openstack.org', 'v1beta1', k, plural);
export const KeystoneAPIKind = keystoneKind('KeystoneAPI', 'keystoneapis');
export const KeystoneServiceKind = keystoneKind('KeystoneService', 'keystoneservices');
export const KeystoneEndpointKind = keystoneKind('KeystoneEndpoint', 'keystoneendpoints');
export const KeystoneApplicationCredentialKind = keystoneKind(
  'KeystoneApplicationCredential',
  'keystoneapplicationcredentials',
);
export const PlacementAPIKind = kind('placement.openstack.org', 'v1beta1', 'PlacementAPI', 'placementapis');
export const NetworkAddonsConfigKind = kind(
  'networkaddonsoperator.network.kubevirt.io',
  'v1',
  'NetworkAddonsConfig',
  'networkaddonsconfigs',
  false,
);
export const SIPClusterKind = kind('airship.airshipit.org', 'v1', 'SIPCluster', 'sipclusters');

export const OPENSTACK_NAMESPACE = 'openstack';
export const SIP_NAMESPACE = 'sip-demo';

/** The seeds' CRs `make demo` applies (and the e2e tests apply from the same files). */
export const keystoneTarget: DemoTarget = {
  label: 'KeystoneAPI openstack/keystone',
  kind: KeystoneAPIKind,
  namespace: OPENSTACK_NAMESPACE,
  name: 'keystone',
  doneCondition: 'Ready',
};
export const placementTarget: DemoTarget = {
  label: 'PlacementAPI openstack/placement',
  kind: PlacementAPIKind,
  namespace: OPENSTACK_NAMESPACE,
  name: 'placement',
  doneCondition: 'Ready',
};
export const networkAddonsTarget: DemoTarget = {
  label: 'NetworkAddonsConfig cluster',
  kind: NetworkAddonsConfigKind,
  name: 'cluster',
  doneCondition: 'Available',
};
export const sipTarget: DemoTarget = {
  label: 'SIPCluster sip-demo/tenant-a',
  kind: SIPClusterKind,
  namespace: SIP_NAMESPACE,
  name: 'tenant-a',
  doneCondition: 'Ready',
};

/** Every custom resource `make demo` applies, in the order they should converge. */
export const demoTargets: DemoTarget[] = [keystoneTarget, placementTarget, networkAddonsTarget, sipTarget];
