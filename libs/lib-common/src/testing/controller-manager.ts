import { Kinds } from '../client/kinds.js';
import type { KubeObject } from '../client/types.js';
import { ExternalKinds } from '../external/kinds.js';
import type { FakeKubeClient } from './fake.js';

type Ref = { namespace?: string; name: string };

/**
 * Plays kube-controller-manager once on a fake API server, for reconciler unit tests: every Job
 * not yet succeeded gets `status.succeeded: 1`, every Deployment reports `spec.replicas` pods
 * ready, available and updated at its current generation (rolled out). Call it between reconciles.
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
      availableReplicas: n,
      updatedReplicas: n,
    };
    await fake.patch(Kinds.Deployment, d.metadata as Ref, { status }, 'merge', { subresource: 'status' });
  }
}

/**
 * A Galera `name` as mariadb-operator's namespace has it, on a fake API server: the CR and its
 * Service, labelled as mariadb-operator labels it (what `databaseInstance` finds).
 */
export function seedGalera(fake: FakeKubeClient, namespace: string, name = 'openstack'): void {
  fake.seed(ExternalKinds.Galera, {
    apiVersion: 'mariadb.openstack.org/v1beta1',
    kind: 'Galera',
    metadata: { name, namespace },
    spec: { containerImage: 'mariadb', replicas: 1, secret: 'osp-secret', storageRequest: '1G' },
  } as KubeObject);
  fake.seed(Kinds.Service, {
    metadata: { name, namespace, labels: { app: 'mariadb', cr: `mariadb-${name}` } },
    spec: { ports: [{ port: 3306 }] },
  } as KubeObject);
}

/** Plays mariadb-operator once: the MariaDBDatabase and MariaDBAccount `ref` names report Ready. */
export function simulateMariadbOperator(fake: FakeKubeClient, ref: Ref): void {
  const now = new Date().toISOString();
  for (const [kind, type] of [
    [ExternalKinds.MariaDBDatabase, 'MariaDBDatabaseReady'],
    [ExternalKinds.MariaDBAccount, 'MariaDBAccountReady'],
  ] as const) {
    const obj = fake.peek(kind, ref);
    if (obj)
      fake.seed(kind, {
        ...obj,
        status: { conditions: [{ type, status: 'True', lastTransitionTime: now }] },
      });
  }
}
