import { DEFAULT_MACVTAP_DEVICE_PLUGIN_CONFIG } from '../api/constants.js';
import type { NetworkAddonsConfigSpec } from '../api/network-addons-config.js';

type Macvtap = NonNullable<NetworkAddonsConfigSpec['macvtap']>;

/** Empty takes the previously applied ConfigMap name, else macvtap-deviceplugin-config. */
export function fillMacvtapDefaults(
  macvtap: Macvtap | undefined,
  previous: Macvtap | undefined,
): Macvtap | undefined {
  if (!macvtap) return undefined;
  return {
    devicePluginConfig:
      macvtap.devicePluginConfig || previous?.devicePluginConfig || DEFAULT_MACVTAP_DEVICE_PLUGIN_CONFIG,
  };
}
