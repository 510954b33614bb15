import { containersOf, rolloutMessages } from '../../status/rollout.js';
import type { NetworkAddonsPass } from '../context.js';

/**
 * How the rollout of the applied DaemonSets and Deployments goes (Progressing or Available), and
 * the periodic resync that re-checks a deployed configuration.
 */
export function trackRollout(ctx: NetworkAddonsPass) {
  const workloads = (ctx.applied ?? []).filter((o) => o.kind === 'DaemonSet' || o.kind === 'Deployment');
  ctx.outcome = {
    kind: 'applied',
    progressing: rolloutMessages(workloads),
    containers: containersOf(workloads),
  };
  ctx.requeueAfter(ctx.settings.resyncMs);
  return undefined;
}
