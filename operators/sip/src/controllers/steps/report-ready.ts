import { ConditionStatus } from '@stackops/lib-common/conditions';
import { CONDITION_READY, ReadyReason } from '../../api/constants.js';
import { fromStep, type SIPClusterPass } from '../context.js';
import { setReady } from '../status.js';

/** `2 ControlPlane, 3 Worker hosts scheduled; services loadbalancer-controlplane-a, jumphost-a`. */
function readyMessage(p: SIPClusterPass): string {
  const roles = fromStep(p.gathered, 'gatherHosts').roles;
  const instances = fromStep(p.deployed, 'deployServices').instances;
  const hosts = roles.map((r) => `${r.hosts.length} ${r.role}`).join(', ') || 'no';
  const services = instances.length > 0 ? `; services ${instances.join(', ')}` : '';
  return `${hosts} hosts scheduled${services}`;
}

/** The last step: every role complete, services deployed, hosts labelled — Ready. */
export function reportReady(p: SIPClusterPass): void {
  setReady(
    p,
    {
      type: CONDITION_READY,
      status: ConditionStatus.True,
      reason: ReadyReason.ReconciliationSucceeded,
      message: readyMessage(p),
    },
    { type: 'Normal', reason: ReadyReason.ReconciliationSucceeded, message: 'SIPCluster is ready' },
  );
}
