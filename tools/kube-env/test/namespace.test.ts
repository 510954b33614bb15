import { describe, expect, it } from 'vitest';
import { clients, createTestNamespace, deployment, isNotFound, podTemplate, waitFor } from './helpers.js';

const { core, apps } = clients();

describe('namespace deletion', () => {
  it('deleting a namespace with running pods in it completes', async () => {
    const namespace = await createTestNamespace(core, 'kube-env-nsdel');
    await apps.createNamespacedDeployment({ namespace, body: deployment('busy', 2) });
    await core.createNamespacedPod({
      namespace,
      body: { ...podTemplate({ app: 'bare' }), metadata: { name: 'bare', labels: { app: 'bare' } } },
    });
    await waitFor('3 pods Running', async () => {
      const pods = (await core.listNamespacedPod({ namespace })).items;
      return pods.length === 3 && pods.every((p) => p.status?.phase === 'Running');
    });

    await core.deleteNamespace({ name: namespace });
    await waitFor(
      `namespace ${namespace} to be gone`,
      async () => {
        try {
          await core.readNamespace({ name: namespace });
          return false;
        } catch (error) {
          return isNotFound(error);
        }
      },
      { timeoutMs: 60_000, describe: async () => (await core.readNamespace({ name: namespace })).status },
    );
    await expect(core.readNamespace({ name: namespace })).rejects.toSatisfy(isNotFound);
  });
});
