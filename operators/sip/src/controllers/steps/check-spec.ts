import { ReconcileError } from '@stackops/lib-common/runtime';
import { ReadyReason } from '../../api/constants.js';
import type { SIPCluster } from '../../api/kinds.js';
import { authorizedKeyProblem } from '../../services/authorized-keys.js';
import type { SIPClusterPass } from '../context.js';
import { gatherHosts } from './gather-hosts.js';

/**
 * Every error of a SIPCluster's spec that needs no other object, each naming its field: what the
 * CRD's rules cannot check (an authorized key's blob against its key type).
 */
export function sipSpecProblems(spec: SIPCluster['spec']): string[] {
  return (spec.services.jumpHost ?? []).flatMap((jh, j) =>
    (jh.sshAuthorizedKeys ?? []).flatMap((key, i) => {
      const problem = authorizedKeyProblem(key);
      return problem
        ? [`spec.services.jumpHost[${j}].sshAuthorizedKeys[${i}] is not a valid authorized key: ${problem}`]
        : [];
    }),
  );
}

/**
 * The first step: the spec's own errors, all in one message, before the hosts are gathered (which
 * waits for BareMetalHosts). With errors, what gathering the hosts finds wrong is said beside them,
 * and the pass ends: Ready False (InfraServiceFailure, Error) and a Warning Event.
 */
export async function checkSpec(p: SIPClusterPass): Promise<void> {
  const problems = sipSpecProblems(p.cr.spec);
  if (problems.length === 0) return;
  let beside = '';
  try {
    await gatherHosts(p);
  } catch (err) {
    if (!(err instanceof ReconcileError)) throw err;
    beside = `; ${err.message}`;
  }
  throw new ReconcileError(`Invalid spec: ${problems.join('; ')}${beside}`, {
    reason: ReadyReason.InfraServiceFailure,
    severity: 'Error',
  });
}
