/** Container images of the components (operator env vars, defaults set by the chart). */
export interface ComponentImages {
  multus: string;
  multusDynamicNetworks: string;
  linuxBridge: string;
  linuxBridgeMarker: string;
  kubeMacPool: string;
  nmstateHandler: string;
  ovsCni: string;
  macvtapCni: string;
  kubeSecondaryDns: string;
  coreDns: string;
  kubevirtIpamController: string;
}

/** The environment variable naming each component's image (upstream's names). */
export const IMAGE_ENV_VARS: Readonly<Record<keyof ComponentImages, string>> = {
  multus: 'MULTUS_IMAGE',
  multusDynamicNetworks: 'MULTUS_DYNAMIC_NETWORKS_CONTROLLER_IMAGE',
  linuxBridge: 'LINUX_BRIDGE_IMAGE',
  linuxBridgeMarker: 'LINUX_BRIDGE_MARKER_IMAGE',
  kubeMacPool: 'KUBEMACPOOL_IMAGE',
  nmstateHandler: 'NMSTATE_HANDLER_IMAGE',
  ovsCni: 'OVS_CNI_IMAGE',
  macvtapCni: 'MACVTAP_CNI_IMAGE',
  kubeSecondaryDns: 'KUBE_SECONDARY_DNS_IMAGE',
  coreDns: 'CORE_DNS_IMAGE',
  kubevirtIpamController: 'KUBEVIRT_IPAM_CONTROLLER_IMAGE',
};

/**
 * Images used when a variable is unset: the ones cluster-network-addons-operator v0.102.0 ships
 * (pinned by digest), and the last kubernetes-nmstate handler release. The chart sets the same
 * values explicitly (a unit test keeps both in step).
 */
export const DEFAULT_IMAGES: Readonly<ComponentImages> = {
  multus:
    'ghcr.io/k8snetworkplumbingwg/multus-cni@sha256:3c20900b5381fac7f9cbbdfac8370ea10a2f6ed7fbecc678384a9db57047abb1',
  multusDynamicNetworks:
    'ghcr.io/k8snetworkplumbingwg/multus-dynamic-networks-controller@sha256:2a2bb32c0ea8b232b3dbe81c0323a107e8b05f8cad06704fca2efd0d993a87be',
  linuxBridge:
    'quay.io/kubevirt/cni-default-plugins@sha256:976a24392c2a096c38c2663d234b2d3131f5c24558889196d30b9ac1b6716788',
  linuxBridgeMarker:
    'quay.io/kubevirt/bridge-marker@sha256:f9611ec10bb4aec44b0ec19f9b9d748a36255c089a1f59bc76e5fc37acc0fed2',
  kubeMacPool:
    'quay.io/kubevirt/kubemacpool@sha256:fee2954568d346c3be9c1ae4353dc6b3acc57a80bf55f008d84ac5ac557b8104',
  nmstateHandler: 'quay.io/nmstate/kubernetes-nmstate-handler:v0.82.0',
  ovsCni:
    'ghcr.io/k8snetworkplumbingwg/ovs-cni-plugin@sha256:435f374b434b3bc70a5cfaba0011fdcf5f433d96b98b06d29306cbd8db3a8c21',
  macvtapCni:
    'quay.io/kubevirt/macvtap-cni@sha256:5266955a654a4cb4e425424ab274cf31e7a6deb3f340e3679a11d689bfa734d0',
  kubeSecondaryDns:
    'ghcr.io/kubevirt/kubesecondarydns@sha256:f5fe9c98fb6d7e5e57a6df23fe82e43e65db5953d76af44adda9ab40c46ad0bf',
  coreDns:
    'registry.k8s.io/coredns/coredns@sha256:a0ead06651cf580044aeb0a0feba63591858fb2e43ade8c9dea45a6a89ae7e5e',
  kubevirtIpamController:
    'ghcr.io/kubevirt/ipam-controller@sha256:08f250f46f932beb81f82a8fdd003824815a726034d2aa2d58d59feb34496db3',
};

/** Each image from its variable, else the default. */
export function imagesFromEnv(env: Readonly<Record<string, string | undefined>>): ComponentImages {
  const images = { ...DEFAULT_IMAGES };
  for (const [key, variable] of Object.entries(IMAGE_ENV_VARS) as [keyof ComponentImages, string][]) {
    const value = env[variable];
    if (value) images[key] = value;
  }
  return images;
}
