import type { Component } from './component.js';
import { kubeSecondaryDNS } from './kube-secondary-dns.js';
import { kubeMacPool } from './kubemacpool.js';
import { kubevirtIpamController } from './kubevirt-ipam-controller.js';
import { linuxBridge } from './linux-bridge.js';
import { macvtap } from './macvtap.js';
import { multus } from './multus.js';
import { multusDynamicNetworks } from './multus-dynamic-networks.js';
import { networkPolicies } from './network-policy.js';
import { nmstate } from './nmstate.js';
import { ovs } from './ovs.js';

/** Every component in upstream's render order (nmstate sits where upstream once rendered it). */
export const COMPONENTS: readonly Component[] = [
  multus,
  multusDynamicNetworks,
  linuxBridge,
  kubeMacPool,
  nmstate,
  ovs,
  macvtap,
  kubeSecondaryDNS,
  kubevirtIpamController,
  networkPolicies,
];
