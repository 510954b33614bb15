import { type FakeKubeClient, fakeConditionOf, reconcileOnce } from '@stackops/lib-common/testing';
import { type PlacementAPI, PlacementAPIKind } from '../src/api/kinds.js';
import { defaultsFromEnv } from '../src/config/defaults.js';
import { placementApiReconciler } from '../src/controllers/placement-api-reconciler.js';

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

/** The namespace and the PlacementAPI of the reconciler unit tests. */
export const FAKE_PLACEMENT = { namespace: 'openstack', name: 'placement' };

/** One pass of a fresh PlacementAPI reconciler (default settings) over the fake. */
export const reconcilePlacement = (fake: FakeKubeClient) =>
  reconcileOnce<PlacementAPI>(
    fake,
    PlacementAPIKind,
    FAKE_PLACEMENT,
    placementApiReconciler(defaultsFromEnv({})),
  );

/** The PlacementAPI's condition `type` as the fake stores it. */
export const placementCondition = fakeConditionOf(PlacementAPIKind, FAKE_PLACEMENT);

/** The PlacementAPI as the API server returns it before this operator touched it (no uid or generation yet). */
export const unreconciledPlacementAPI = (): PlacementAPI => {
  const { uid: _u, generation: _g, ...metadata } = samplePlacementAPI().metadata;
  return { ...samplePlacementAPI(), metadata };
};
