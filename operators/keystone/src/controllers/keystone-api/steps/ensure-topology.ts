import { serviceTopologySteps } from '@stackops/lib-common/openstack';
import { KeystoneFinalizers } from '../../../api/finalizers.js';
import { keystoneServiceLabels } from '../../../resources/names.js';
import type { KeystoneApiPass } from '../context.js';

/**
 * `spec.topologyRef` (infra-operator's Topology), as upstream: the finalizer
 * `openstack.org/keystoneapi-<name>` on the Topology, its spread constraints (default selector: the
 * API pods' labels) and affinity on the pods, `status.lastAppliedTopology`, TopologyReady.
 */
export const { ensureTopology, releaseTopology } = serviceTopologySteps<KeystoneApiPass>({
  finalizer: KeystoneFinalizers.KeystoneAPI,
  selector: (ctx) => keystoneServiceLabels(ctx.cr),
});
