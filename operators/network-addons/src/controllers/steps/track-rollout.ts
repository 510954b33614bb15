import { Kinds, type KubeObject } from '@stackops/lib-common/client';
import { podFailures } from '../../status/pod-failures.js';
import { containersOf, rolloutMessages } from '../../status/rollout.js';
import type { NetworkAddonsPass } from '../context.js';

/**
 * How the rollout of the applied DaemonSets and Deployments goes (Progressing or Available, Degraded
 * while their pods fail to start, read from the cached pods). Nothing is polled: a rollout's progress
 * comes back as changes to the watched workloads and pods.
 */
export function trackRollout(ctx: NetworkAddonsPass) {
  const workloads = (ctx.applied ?? []).filter((o) => o.kind === 'DaemonSet' || o.kind === 'Deployment');
  const progressing = rolloutMessages(workloads);
  // Pods are looked at only while something is not rolled out: a rolled-out workload's pods are Ready.
  const pods =
    progressing.length > 0
      ? ctx.cache.list<KubeObject>(Kinds.Pod, { namespace: ctx.settings.env.operandNamespace })
      : [];
  ctx.outcome = {
    kind: 'applied',
    progressing,
    failing: podFailures(workloads, pods),
    containers: containersOf(workloads),
  };
  return undefined;
}
