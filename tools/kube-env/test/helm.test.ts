import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { versions } from '../src/versions.js';
import { clients, createTestNamespace, isNotFound, tool, waitFor } from './helpers.js';

const chart = fileURLToPath(new URL('./fixtures/charts/smoke', import.meta.url));
const { core, apps } = clients();
let namespace = '';

beforeAll(async () => {
  namespace = await createTestNamespace(core, 'kube-env-helm');
});
afterAll(async () => {
  await core.deleteNamespace({ name: namespace });
});

describe('helm against the local control plane', () => {
  it('installs a chart (waiting for its Deployment) and uninstalls it', async () => {
    const out = await tool('helm', [
      'install',
      'smoke',
      chart,
      '--namespace',
      namespace,
      '--wait',
      '--timeout',
      '90s',
    ]);
    expect(out).toContain('STATUS: deployed');

    const deployment = await apps.readNamespacedDeployment({ name: 'smoke-app', namespace });
    expect(deployment.status?.readyReplicas).toBe(2);
    const config = await core.readNamespacedConfigMap({ name: 'smoke-config', namespace });
    // The chart's kubeVersion constraint passed and templates see the stamped server version.
    expect(config.data?.kubeVersion).toBe(versions.kubernetes);
    expect(await tool('helm', ['list', '--namespace', namespace, '--short'])).toBe('smoke\n');

    await tool('helm', ['uninstall', 'smoke', '--namespace', namespace, '--wait', '--timeout', '60s']);
    expect(await tool('helm', ['list', '--namespace', namespace, '--short'])).toBe('');
    await expect(core.readNamespacedConfigMap({ name: 'smoke-config', namespace })).rejects.toSatisfy(
      isNotFound,
    );
    await expect(apps.readNamespacedDeployment({ name: 'smoke-app', namespace })).rejects.toSatisfy(
      isNotFound,
    );
    await waitFor('the release pods to go away', async () => {
      const pods = await core.listNamespacedPod({
        namespace,
        labelSelector: 'app.kubernetes.io/instance=smoke',
      });
      return pods.items.length === 0;
    });
  });
});
