import { canonicalizeResourceQuantities } from '@stackops/lib-common/runtime';
import type { PlacementDefaults } from './config/defaults.js';

/** upstream's path (kubebuilder's name for the PlacementAPI defaulting webhook). */
export const PLACEMENT_API_WEBHOOK_PATH = '/mutate-placement-openstack-org-v1beta1-placementapi';

/**
 * What upstream's PlacementAPI webhook stores: `containerImage` from the operator's default when
 * empty, `apiTimeout` 60 when 0, and resource quantities in canonical form (`cpu: "1.0"` → `"1"`).
 */
export function defaultPlacementApi(defaults: Pick<PlacementDefaults, 'apiImage'>) {
  return (obj: Record<string, unknown>): void => {
    const spec = obj['spec'] as Record<string, unknown> | undefined;
    if (!spec) return;
    if (!spec['containerImage']) spec['containerImage'] = defaults.apiImage;
    if (!spec['apiTimeout']) spec['apiTimeout'] = 60;
    canonicalizeResourceQuantities(spec);
  };
}
