import type { KubeObject } from '@stackops/lib-common/client';
import { buildEndpointService, metalLBAnnotations, ServiceAnnotations } from '@stackops/lib-common/openstack';
import type { MetalLBConfig, RoutedOverrideSpec, ServiceEndpointType } from '../api/common.js';
import type { KeystoneAPI } from '../api/keystone-api.js';
import { KEYSTONE_PORT, KeystoneNames, keystoneServiceLabels } from './names.js';

export const ENDPOINT_TYPES: readonly ServiceEndpointType[] = ['internal', 'public'];

/** The early `externalEndpoints` form as the override it stands for: a MetalLB LoadBalancer Service. */
function metalLBOverride(m: MetalLBConfig): RoutedOverrideSpec {
  const annotations = metalLBAnnotations({
    addressPool: m.ipAddressPool,
    ...(m.loadBalancerIPs ? { loadBalancerIPs: m.loadBalancerIPs } : {}),
    ...(m.sharedIPKey ? { sharedIPKey: m.sharedIPKey } : {}),
  });
  if (m.sharedIP === false) delete annotations[ServiceAnnotations.MetalLBAllowSharedIP];
  return { metadata: { annotations }, spec: { type: 'LoadBalancer' } };
}

/** The override of one endpoint: `externalEndpoints` first, `override.service` merged over it (it wins). */
export function effectiveOverride(
  cr: KeystoneAPI,
  endpoint: ServiceEndpointType,
): RoutedOverrideSpec | undefined {
  const metal = cr.spec.externalEndpoints?.find((e) => e.endpoint === endpoint);
  const base = metal ? metalLBOverride(metal) : undefined;
  const over = cr.spec.override?.service?.[endpoint];
  if (!base) return over;
  if (!over) return base;
  return {
    metadata: {
      labels: { ...base.metadata?.labels, ...over.metadata?.labels },
      annotations: { ...base.metadata?.annotations, ...over.metadata?.annotations },
    },
    spec: { ...base.spec, ...over.spec },
    ...(over.endpointURL ? { endpointURL: over.endpointURL } : {}),
  };
}

/** Service `<cr>-<endpoint>` on port 5000 selecting the keystone pods, with its override applied. */
export function buildKeystoneService(cr: KeystoneAPI, endpoint: ServiceEndpointType): KubeObject {
  const labels = keystoneServiceLabels(cr);
  return buildEndpointService({
    name: KeystoneNames.serviceBase(cr),
    endpoint,
    namespace: cr.metadata.namespace ?? '',
    labels,
    selector: labels,
    port: KEYSTONE_PORT,
    override: effectiveOverride(cr, endpoint),
  });
}
