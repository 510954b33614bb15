import type { PlacementAPI } from '../src/api/kinds.js';

/** A PlacementAPI as the API server returns it (CRD defaults applied), for unit tests. */
export function samplePlacementAPI(spec: Partial<PlacementAPI['spec']> = {}): PlacementAPI {
  return {
    apiVersion: 'placement.openstack.org/v1beta1',
    kind: 'PlacementAPI',
    metadata: { name: 'placement', namespace: 'openstack', uid: 'u1', generation: 1 },
    spec: {
      apiTimeout: 60,
      serviceUser: 'placement',
      databaseInstance: 'openstack',
      databaseAccount: 'placement',
      replicas: 1,
      secret: 'osp-secret',
      passwordSelectors: { service: 'PlacementPassword' },
      preserveJobs: false,
      ...spec,
    },
  };
}
