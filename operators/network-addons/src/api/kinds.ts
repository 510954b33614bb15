import type { KindRef, KubeObject } from '@stackops/lib-common/client';
import { NAO_DEPRECATED_VERSION, NAO_GROUP, NAO_KIND, NAO_PLURAL, NAO_STORAGE_VERSION } from './constants.js';
import type { NetworkAddonsConfigSpec, NetworkAddonsConfigStatus } from './network-addons-config.js';

/** The storage version; the operator always reads and writes v1 (v1alpha1 objects are served as v1). */
export const NetworkAddonsConfigKind: KindRef = {
  group: NAO_GROUP,
  version: NAO_STORAGE_VERSION,
  kind: NAO_KIND,
  plural: NAO_PLURAL,
  namespaced: false,
};

/** The deprecated version, served with the same schema. */
export const NetworkAddonsConfigV1alpha1Kind: KindRef = {
  ...NetworkAddonsConfigKind,
  version: NAO_DEPRECATED_VERSION,
};

export interface NetworkAddonsConfig extends KubeObject {
  spec?: NetworkAddonsConfigSpec;
  status?: NetworkAddonsConfigStatus;
}
