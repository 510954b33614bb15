export * from './constants.js';
export { crdDefinitions, networkAddonsConfigCrd } from './crds.js';
export * from './duration.js';
export {
  type NetworkAddonsConfig,
  NetworkAddonsConfigKind,
  NetworkAddonsConfigV1alpha1Kind,
} from './kinds.js';
export * from './mac.js';
export * from './network-addons-config.js';
export * from './placement.js';
export * from './tls-security-profile.js';
