import { canonicalizeResourceQuantities } from '@stackops/lib-common/runtime';
import type { KeystoneDefaults } from './config/defaults.js';

/** upstream's path (kubebuilder's name for the KeystoneAPI defaulting webhook). */
export const KEYSTONE_API_WEBHOOK_PATH = '/mutate-keystone-openstack-org-v1beta1-keystoneapi';

/**
 * What upstream's KeystoneAPI webhook stores: `containerImage` from the operator's default when
 * empty, and resource quantities in canonical form (`cpu: "1.0"` → `"1"`); the other defaults
 * are the CRD schema's.
 */
export function defaultKeystoneApi(defaults: Pick<KeystoneDefaults, 'apiImage'>) {
  return (obj: Record<string, unknown>): void => {
    const spec = obj['spec'] as Record<string, unknown> | undefined;
    if (!spec) return;
    if (!spec['containerImage']) spec['containerImage'] = defaults.apiImage;
    canonicalizeResourceQuantities(spec);
  };
}
