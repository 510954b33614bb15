import { CRI_SOCKET_PATHS, DEFAULT_CRI_SOCKET_PATH } from '../api/constants.js';
import type { NetworkAddonsConfigSpec } from '../api/network-addons-config.js';

type Dynamic = NonNullable<NetworkAddonsConfigSpec['multusDynamicNetworks']>;

export function validateMultusDynamicNetworks(spec: NetworkAddonsConfigSpec): string[] {
  const dyn = spec.multusDynamicNetworks;
  if (!dyn) return [];
  if (!spec.multus) return ['the `multus` configuration is required'];
  const path = dyn.hostCRISocketPath as string | undefined;
  if (path && !(CRI_SOCKET_PATHS as readonly string[]).includes(path)) {
    return [`\`hostCRISocketPath\` must be one of: ${CRI_SOCKET_PATHS.join(', ')}`];
  }
  return [];
}

/** Empty takes the previously applied socket, else the CRI-O one. */
export function fillMultusDynamicNetworksDefaults(
  dyn: Dynamic | undefined,
  previous: Dynamic | undefined,
): Dynamic | undefined {
  if (!dyn) return undefined;
  return {
    hostCRISocketPath: dyn.hostCRISocketPath || previous?.hostCRISocketPath || DEFAULT_CRI_SOCKET_PATH,
  };
}
