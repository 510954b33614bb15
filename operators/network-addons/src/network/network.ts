import type { ImagePullPolicy } from '../api/constants.js';
import type { NetworkAddonsConfigSpec, SelfSignConfiguration } from '../api/network-addons-config.js';
import {
  changeSafeImagePullPolicy,
  fillImagePullPolicyDefault,
  validateImagePullPolicy,
} from './image-pull-policy.js';
import { fillKubeMacPoolDefaults, type RandomBytes, validateKubeMacPool } from './kubemacpool-range.js';
import { fillMacvtapDefaults } from './macvtap.js';
import {
  fillMultusDynamicNetworksDefaults,
  validateMultusDynamicNetworks,
} from './multus-dynamic-networks.js';
import {
  type FilledPlacementConfiguration,
  fillPlacementConfigurationDefaults,
} from './placement-configuration.js';
import {
  fillSelfSignConfigurationDefaults,
  validateSelfSignConfiguration,
} from './self-sign-configuration.js';

/**
 * The spec after defaults: what is rendered, and what the applied-config ConfigMap keeps so that
 * generated values (the MAC range) and earlier defaults stay the same on the next reconcile.
 */
export type FilledSpec = Omit<
  NetworkAddonsConfigSpec,
  'imagePullPolicy' | 'selfSignConfiguration' | 'placementConfiguration'
> & {
  imagePullPolicy: ImagePullPolicy;
  selfSignConfiguration: SelfSignConfiguration;
  placementConfiguration: FilledPlacementConfiguration;
};

/** Every problem of the spec, in upstream's order (kubeMacPool, imagePullPolicy, selfSign, dynamic networks). */
export function validate(spec: NetworkAddonsConfigSpec): string[] {
  return [
    ...validateKubeMacPool(spec.kubeMacPool),
    ...validateImagePullPolicy(spec.imagePullPolicy),
    ...validateSelfSignConfiguration(spec.selfSignConfiguration),
    ...validateMultusDynamicNetworks(spec),
  ];
}

/** Upstream's aggregate error text: `invalid configuration:` then one problem per line. */
export const invalidConfiguration = (errors: readonly string[]): string =>
  `invalid configuration:\n${errors.join('\n')}`;

/** Fills every default, taking earlier choices from the previously applied spec. */
export function fillDefaults(
  spec: NetworkAddonsConfigSpec,
  previous: FilledSpec | undefined,
  random: RandomBytes,
): FilledSpec {
  const filled: FilledSpec = {
    ...structuredClone(spec),
    imagePullPolicy: fillImagePullPolicyDefault(spec.imagePullPolicy, previous?.imagePullPolicy),
    selfSignConfiguration: fillSelfSignConfigurationDefaults(
      spec.selfSignConfiguration,
      previous?.selfSignConfiguration,
    ),
    placementConfiguration: fillPlacementConfigurationDefaults(spec.placementConfiguration),
  };
  const kubeMacPool = fillKubeMacPoolDefaults(spec.kubeMacPool, previous?.kubeMacPool, random);
  if (kubeMacPool) filled.kubeMacPool = kubeMacPool;
  const dynamic = fillMultusDynamicNetworksDefaults(
    spec.multusDynamicNetworks,
    previous?.multusDynamicNetworks,
  );
  if (dynamic) filled.multusDynamicNetworks = dynamic;
  const macvtap = fillMacvtapDefaults(spec.macvtap, previous?.macvtap);
  if (macvtap) filled.macvtap = macvtap;
  return filled;
}

/**
 * Problems with moving from the previously applied spec to the new one. Adding and removing
 * components and changing the MAC range are allowed; the image pull policy is fixed.
 */
export function isChangeSafe(previous: FilledSpec, next: FilledSpec): string[] {
  return changeSafeImagePullPolicy(previous.imagePullPolicy, next.imagePullPolicy);
}
