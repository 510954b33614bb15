import { Kinds, type KubeObject } from '@stackops/lib-common/client';
import { ConditionStatus, Severity } from '@stackops/lib-common/conditions';
import { CONDITION_READY, ReadyReason } from '../../api/constants.js';
import { fromStep, type SIPClusterPass } from '../context.js';
import { rolledOut, setReady } from '../status.js';

/** `2 ControlPlane, 3 Worker hosts scheduled`. */
function hostsMessage(p: SIPClusterPass): string {
  const roles = fromStep(p.gathered, 'gatherHosts').roles;
  return `${roles.map((r) => `${r.hosts.length} ${r.role}`).join(', ') || 'no'} hosts scheduled`;
}

/**
 * The cached Deployment when it is the same object at the same generation (it may have rolled out
 * while this pass labelled the hosts): Ready is then written by this pass, not by one more pass
 * woken by the rollout. Otherwise the object the apply returned.
 */
function newest(p: SIPClusterPass, applied: KubeObject): KubeObject {
  const { namespace, name = '' } = applied.metadata;
  const cached = p.cache.get<KubeObject>(Kinds.Deployment, { namespace, name });
  const same =
    cached?.metadata.uid === applied.metadata.uid &&
    cached?.metadata.generation === applied.metadata.generation;
  return same && cached ? cached : applied;
}

/**
 * The last step: every role complete, services applied, hosts labelled. Ready is True once every
 * service Deployment has rolled out; until then False/Progressing naming the ones still rolling
 * out (their status changes wake the reconcile: the SIPCluster owns them).
 */
export function reportReady(p: SIPClusterPass): void {
  const { instances, deployments } = fromStep(p.deployed, 'deployServices');
  const rollingOut = deployments.filter((d) => !rolledOut(newest(p, d))).map((d) => d.metadata.name ?? '');
  if (rollingOut.length > 0) {
    const message = `${hostsMessage(p)}; services rolling out: ${rollingOut.join(', ')}`;
    setReady(
      p,
      {
        type: CONDITION_READY,
        status: ConditionStatus.False,
        reason: ReadyReason.Progressing,
        severity: Severity.Info,
        message,
      },
      { type: 'Normal', reason: ReadyReason.Progressing, message },
    );
    return;
  }
  const services = instances.length > 0 ? `; services ${instances.join(', ')}` : '';
  setReady(
    p,
    {
      type: CONDITION_READY,
      status: ConditionStatus.True,
      reason: ReadyReason.ReconciliationSucceeded,
      message: `${hostsMessage(p)}${services}`,
    },
    { type: 'Normal', reason: ReadyReason.ReconciliationSucceeded, message: 'SIPCluster is ready' },
  );
}
