/** API group, version and kind of the SIPCluster API, as upstream airship SIP serves them. */
export const SIP_GROUP = 'airship.airshipit.org';
export const SIP_VERSION = 'v1';
export const SIP_CLUSTER_KIND = 'SIPCluster';
export const SIP_CLUSTER_PLURAL = 'sipclusters';

/** metal3's BareMetalHost API (the subset SIP reads). */
export const METAL3_GROUP = 'metal3.io';
export const METAL3_VERSION = 'v1alpha1';
export const BMH_KIND = 'BareMetalHost';
export const BMH_PLURAL = 'baremetalhosts';

/** Upstream's finalizer name, so upstream manifests that list it keep working; we also add it ourselves. */
export const SIP_FINALIZER = 'sip.airship.airshipit.org/finalizer';

/** The labels SIP writes on the BareMetalHosts it schedules (upstream keys, matched by CAPI hostSelector). */
export const LABEL_CLUSTER_NAMESPACE = 'sip.airshipit.org/cluster-namespace';
export const LABEL_CLUSTER_NAME = 'sip.airshipit.org/cluster-name';
export const LABEL_NODE_TYPE = 'sip.airshipit.org/node-type';
export const SIP_HOST_LABELS = [LABEL_CLUSTER_NAMESPACE, LABEL_CLUSTER_NAME, LABEL_NODE_TYPE] as const;

/** The roles upstream defines (Go constants RoleControlPlane / RoleWorker). */
export const ROLE_CONTROL_PLANE = 'ControlPlane';
export const ROLE_WORKER = 'Worker';
export const ROLES = [ROLE_CONTROL_PLANE, ROLE_WORKER] as const;
export type Role = (typeof ROLES)[number];

/** The one condition type upstream writes, and its reasons. */
export const CONDITION_READY = 'Ready';
export const ReadyReason = {
  Progressing: 'Progressing',
  Unschedulable: 'Unschedulable',
  InfraServiceFailure: 'InfraServiceFailure',
  UnableToApplyLabels: 'UnableToApplyLabels',
  UnableToDecommission: 'UnableToDecommission',
  ReconciliationSucceeded: 'ReconciliationSucceeded',
} as const;
export type ReadyReason = (typeof ReadyReason)[keyof typeof ReadyReason];

/** Key of the networkData Secret that holds the OpenStack network_data document. */
export const NETWORK_DATA_KEY = 'networkData';
/** Keys of a BMC credentials Secret. */
export const BMC_USERNAME_KEY = 'username';
export const BMC_PASSWORD_KEY = 'password';

/** Fixed service ports (the load balancer's API port and the jump host's ssh port are upstream's). */
export const CONTROL_PLANE_API_PORT = 6443;
export const SSH_PORT = 22;
export const DEX_PORT = 5556;
/** Largest worker nodePortRange: each port becomes a Service port, a container port and an HAProxy frontend. */
export const MAX_WORKER_PORTS = 256;
/** `loadbalancer-controlplane-` is 26 characters and a Service name is a DNS label of at most 63. */
export const MAX_NAME_LENGTH = 63 - 'loadbalancer-controlplane-'.length;
