import { Kinds } from '../client/kinds.js';
import type { KubeObject } from '../client/types.js';
import type { FakeKubeClient } from './fake.js';

type Ref = { namespace?: string; name: string };

/**
 * Plays kube-controller-manager once on a fake API server, for reconciler unit tests: every Job
 * not yet succeeded gets `status.succeeded: 1`, every Deployment reports `spec.replicas` pods
 * ready and updated at its current generation (rolled out). Call it between reconciles.
 */
export async function simulateControllerManager(fake: FakeKubeClient): Promise<void> {
  for (const job of fake.all(Kinds.Job)) {
    if ((job['status'] as { succeeded?: number } | undefined)?.succeeded) continue;
    await fake.patch(Kinds.Job, job.metadata as Ref, { status: { succeeded: 1 } }, 'merge', {
      subresource: 'status',
    });
  }
  for (const d of fake.all<KubeObject & { spec?: { replicas?: number } }>(Kinds.Deployment)) {
    const n = d.spec?.replicas ?? 1;
    const status = {
      observedGeneration: d.metadata.generation,
      replicas: n,
      readyReplicas: n,
      updatedReplicas: n,
    };
    await fake.patch(Kinds.Deployment, d.metadata as Ref, { status }, 'merge', { subresource: 'status' });
  }
}
