/** API group, kind and the fixed names cluster-network-addons-operator uses (kept for compatibility). */
export const NAO_GROUP = 'networkaddonsoperator.network.kubevirt.io';
export const NAO_STORAGE_VERSION = 'v1';
export const NAO_DEPRECATED_VERSION = 'v1alpha1';
export const NAO_KIND = 'NetworkAddonsConfig';
export const NAO_PLURAL = 'networkaddonsconfigs';
export const NAO_SINGULAR = 'networkaddonsconfig';

/** The only NetworkAddonsConfig the operator acts on; any other name is reported as ignored. */
export const OPERATOR_CONFIG_NAME = 'cluster';

/** Prefix of the ConfigMap holding the last applied spec (upstream's spelling, typo included). */
export const APPLIED_CONFIG_PREFIX = 'cluster-networks-addons-operator-applied-';
export const APPLIED_CONFIG_KEY = 'applied';

/** Labels and annotations written on every rendered object. */
export const VERSION_LABEL = `${NAO_GROUP}/version`;
export const REJECT_OWNER_ANNOTATION = `${NAO_GROUP}/rejectOwner`;
export const COMPONENT_LABEL = 'app.kubernetes.io/component';
export const PART_OF_LABEL = 'app.kubernetes.io/part-of';
export const APP_VERSION_LABEL = 'app.kubernetes.io/version';
export const MANAGED_BY_LABEL = 'app.kubernetes.io/managed-by';
export const PROMETHEUS_LABEL = 'prometheus.cnao.io';
export const MANAGED_BY_VALUE = 'cnao-operator';
export const COMPONENT_DEFAULT_VALUE = 'network';

/** Image pull policies a component may be given. */
export const IMAGE_PULL_POLICIES = ['Always', 'IfNotPresent', 'Never'] as const;
export type ImagePullPolicy = (typeof IMAGE_PULL_POLICIES)[number];
export const DEFAULT_IMAGE_PULL_POLICY: ImagePullPolicy = 'IfNotPresent';

/** CRI sockets the multus dynamic-networks controller knows how to talk to. */
export const CRI_SOCKET_PATHS = [
  '/run/crio/crio.sock',
  '/run/containerd/containerd.sock',
  '/run/k3s/containerd/containerd.sock',
] as const;
export const DEFAULT_CRI_SOCKET_PATH = '/run/crio/crio.sock';

/** Name of the macvtap device-plugin ConfigMap when `macvtap.devicePluginConfig` is empty. */
export const DEFAULT_MACVTAP_DEVICE_PLUGIN_CONFIG = 'macvtap-deviceplugin-config';
