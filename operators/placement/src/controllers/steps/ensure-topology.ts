import { serviceTopologySteps } from '@stackops/lib-common/openstack';
import { PLACEMENT_API_FINALIZER } from '../../api/constants.js';
import { placementServiceLabels } from '../../resources/names.js';
import type { PlacementApiPass } from '../context.js';

/**
 * `spec.topologyRef` (infra-operator's Topology), as upstream: the finalizer
 * `openstack.org/placementapi-<name>` on the Topology, its spread constraints (default selector: the
 * API pods' labels) and affinity on the pods, `status.lastAppliedTopology`, TopologyReady.
 */
export const { ensureTopology, releaseTopology } = serviceTopologySteps<PlacementApiPass>({
  finalizer: PLACEMENT_API_FINALIZER,
  selector: (ctx) => placementServiceLabels(ctx.cr.metadata.name ?? ''),
});
