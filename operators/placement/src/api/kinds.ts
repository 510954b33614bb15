import type { KindRef, KubeObject } from '@stackops/lib-common/client';
import { PLACEMENT_API_KIND, PLACEMENT_API_PLURAL, PLACEMENT_GROUP, PLACEMENT_VERSION } from './constants.js';
import type { PlacementAPISpec, PlacementAPIStatus } from './placementapi.js';

export const PlacementAPIKind: KindRef = {
  group: PLACEMENT_GROUP,
  version: PLACEMENT_VERSION,
  kind: PLACEMENT_API_KIND,
  plural: PLACEMENT_API_PLURAL,
  namespaced: true,
};

/** A PlacementAPI as read from the API server (defaults applied by the CRD schema). */
export interface PlacementAPI extends KubeObject {
  spec: PlacementAPISpec;
  status?: PlacementAPIStatus;
}
