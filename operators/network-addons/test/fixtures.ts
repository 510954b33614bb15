import type { NetworkAddonsConfigSpec } from '../src/api/network-addons-config.js';

/**
 * A spec that enables every component (a fresh object each time), written out rather than built
 * from the components list, so that a component dropped from the list shows in the tests.
 */
export const everyComponent = (): NetworkAddonsConfigSpec => ({
  multus: {},
  multusDynamicNetworks: {},
  linuxBridge: {},
  kubeMacPool: {},
  nmstate: {},
  ovs: {},
  macvtap: {},
  kubeSecondaryDNS: {},
  kubevirtIpamController: {},
});
