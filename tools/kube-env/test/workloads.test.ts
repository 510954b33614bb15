import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  clients,
  createTestNamespace,
  deployment,
  podTemplate,
  runOnceTemplate,
  waitFor,
} from './helpers.js';

const { core, apps, batch } = clients();
let namespace = '';

beforeAll(async () => {
  namespace = await createTestNamespace(core, 'kube-env-workloads');
});
afterAll(async () => {
  await core.deleteNamespace({ name: namespace });
});

const podsOf = async (selector: string) =>
  (await core.listNamespacedPod({ namespace, labelSelector: selector })).items;

describe('workloads progress on the fake nodes', () => {
  it('a Deployment of 3 replicas becomes Available, and scaling it to 0 completes', async () => {
    await apps.createNamespacedDeployment({ namespace, body: deployment('web', 3) });
    const read = () => apps.readNamespacedDeployment({ name: 'web', namespace });
    await waitFor(
      'deployment web Available with 3 ready replicas',
      async () => {
        const d = await read();
        const available = d.status?.conditions?.find((c) => c.type === 'Available')?.status === 'True';
        return available && d.status?.readyReplicas === 3 && d.status?.availableReplicas === 3;
      },
      { describe: async () => (await read()).status },
    );
    const pods = await podsOf('app=web');
    expect(pods).toHaveLength(3);
    for (const pod of pods) {
      expect(pod.status?.phase).toBe('Running');
      expect(pod.spec?.nodeName).toMatch(/^kwok-node-\d+$/);
    }

    await apps.replaceNamespacedDeploymentScale({
      name: 'web',
      namespace,
      body: { metadata: { name: 'web', namespace }, spec: { replicas: 0 } },
    });
    await waitFor(
      'deployment web scaled to 0 with no pods left',
      async () => {
        const d = await read();
        return (d.status?.replicas ?? 0) === 0 && (await podsOf('app=web')).length === 0;
      },
      { describe: async () => ({ status: (await read()).status, pods: (await podsOf('app=web')).length }) },
    );
  });

  it('a DaemonSet rolls out one pod on each fake node', async () => {
    const nodes = (await core.listNode({ labelSelector: 'type=kwok' })).items.map((n) => n.metadata?.name);
    expect(nodes.length).toBeGreaterThanOrEqual(1);
    await apps.createNamespacedDaemonSet({
      namespace,
      body: {
        metadata: { name: 'agent' },
        spec: { selector: { matchLabels: { app: 'agent' } }, template: podTemplate({ app: 'agent' }) },
      },
    });
    const read = () => apps.readNamespacedDaemonSet({ name: 'agent', namespace });
    await waitFor(
      `daemonset agent ready on ${nodes.length} nodes`,
      async () => {
        const s = (await read()).status;
        return s?.desiredNumberScheduled === nodes.length && s?.numberReady === nodes.length;
      },
      { describe: async () => (await read()).status },
    );
    const podNodes = (await podsOf('app=agent')).map((p) => p.spec?.nodeName).sort();
    expect(podNodes).toEqual([...nodes].sort());
  });

  it('a Job completes, with its pod Succeeded', async () => {
    await batch.createNamespacedJob({
      namespace,
      body: {
        metadata: { name: 'once' },
        spec: {
          backoffLimit: 0,
          template: runOnceTemplate('once'),
        },
      },
    });
    const read = () => batch.readNamespacedJob({ name: 'once', namespace });
    await waitFor(
      'job once Complete',
      async () =>
        (await read()).status?.conditions?.some((c) => c.type === 'Complete' && c.status === 'True') ?? false,
      { describe: async () => (await read()).status },
    );
    expect((await read()).status?.succeeded).toBe(1);
    const pods = await podsOf('app=once');
    expect(pods.map((p) => p.status?.phase)).toEqual(['Succeeded']);
  });

  it("a CronJob's Job appears on schedule and completes", { timeout: 120_000 }, async () => {
    await batch.createNamespacedCronJob({
      namespace,
      body: {
        metadata: { name: 'every-minute' },
        spec: {
          schedule: '* * * * *',
          jobTemplate: {
            spec: {
              template: runOnceTemplate('cron'),
            },
          },
        },
      },
    });
    const cronJobs = async () =>
      (await batch.listNamespacedJob({ namespace })).items.filter((j) =>
        j.metadata?.ownerReferences?.some((o) => o.kind === 'CronJob' && o.name === 'every-minute'),
      );
    // The schedule fires at the next full minute: up to 60 s plus the controller's resync.
    await waitFor('a Job created by CronJob every-minute', async () => (await cronJobs()).length > 0, {
      timeoutMs: 90_000,
      intervalMs: 1000,
    });
    const jobName = (await cronJobs())[0]?.metadata?.name ?? '';
    await waitFor('the CronJob Job to complete', async () => {
      const job = await batch.readNamespacedJob({ name: jobName, namespace });
      return job.status?.conditions?.some((c) => c.type === 'Complete' && c.status === 'True') ?? false;
    });
  });
});
