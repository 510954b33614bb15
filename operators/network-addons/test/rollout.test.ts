import { Kinds, type KubeObject, type RestKubeClient } from '@stackops/lib-common/client';
import { waitUntil } from '@stackops/lib-common/testing';
import { describe, expect, it } from 'vitest';
import {
  condition,
  getConfig,
  setSpec,
  useNetworkAddonsSuite,
  waitAvailable,
  waitForConditions,
} from './support.js';

/** A kwok-managed node with little CPU; tainted so that only this test's pods (which tolerate it) go there. */
function smallNode(name: string, taintKey: string, cpu: string): KubeObject {
  const resources = { cpu, memory: '8Gi', pods: '110' };
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      annotations: { 'kwok.x-k8s.io/node': 'fake', 'node.alpha.kubernetes.io/ttl': '0' },
      labels: { 'kubernetes.io/hostname': name, 'kubernetes.io/os': 'linux', type: 'kwok' },
    },
    spec: { taints: [{ key: taintKey, value: 'true', effect: 'NoSchedule' }] },
    status: {
      addresses: [{ type: 'InternalIP', address: '127.0.0.1' }],
      allocatable: resources,
      capacity: resources,
    },
  };
}

/** Waits for Progressing=True/Deploying with exactly these lines (the workloads not rolled out). */
const waitForProgressing = (client: RestKubeClient, lines: string[]) =>
  waitUntil(
    `Progressing with ${JSON.stringify(lines)}`,
    async () => {
      const cr = await getConfig(client);
      const p = condition(cr, 'Progressing');
      return p?.status === 'True' && p.reason === 'Deploying' && p.message === lines.join('\n')
        ? cr
        : undefined;
    },
    {
      timeoutMs: 60_000,
      describe: async () => ({
        conditions: (await getConfig(client))?.status?.conditions,
        daemonSets: (
          await client.list(Kinds.DaemonSet, { labelSelector: 'app.kubernetes.io/managed-by=cnao-operator' })
        ).items.map((d) => [d.metadata.name, d['status']]),
        pods: (
          await client.list(Kinds.Pod, { labelSelector: 'app.kubernetes.io/managed-by=cnao-operator' })
        ).items.map((p) => [
          p.metadata.name,
          (p['spec'] as { nodeName?: string }).nodeName,
          (p['status'] as { phase?: string }).phase,
        ]),
      }),
    },
  );

describe('rollouts that cannot finish', () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  const nao = useNetworkAddonsSuite('nao-rollout', {
    cleanup: async () => {
      for (const c of cleanups.reverse()) await c().catch(() => undefined);
    },
  });

  it('keeps a Deployment whose pods fit no node Progressing, then Available once a node matches', async () => {
    const label = `stackops.io/nao-infra-${nao.ns.slice(-6)}`;
    await setSpec(nao.client, {
      kubeMacPool: {},
      placementConfiguration: { infra: { nodeSelector: { [label]: 'true' } } },
    });
    // Once the Deployment controller has counted the Pending pods, the message says so for each.
    const stuck = await waitForProgressing(nao.client, [
      `Deployment "${nao.ns}/kubemacpool-cert-manager" is not available (awaiting 1 nodes)`,
      `Deployment "${nao.ns}/kubemacpool-mac-controller-manager" is not available (awaiting 1 nodes)`,
    ]);
    expect(condition(stuck, 'Degraded')?.status).toBe('False');
    expect(condition(stuck, 'Available')?.message).toBe('Configuration is in process');
    expect(stuck.status?.observedVersion).toBeUndefined();

    // It stays so: nothing schedules the pods.
    await new Promise((r) => setTimeout(r, 2000));
    await waitForConditions(nao.client, { Progressing: 'True', Available: 'False' }, 1000);

    const { items: nodes } = await nao.client.list(Kinds.Node, { labelSelector: 'type=kwok' });
    const node = nodes.find((n) => !n.metadata.labels?.['stackops.io/nao-small'])?.metadata.name ?? '';
    await nao.client.patch(
      Kinds.Node,
      { name: node },
      { metadata: { labels: { [label]: 'true' } } },
      'merge',
    );
    cleanups.push(() =>
      nao.client.patch(Kinds.Node, { name: node }, { metadata: { labels: { [label]: null } } }, 'merge'),
    );
    const done = await waitAvailable(nao.client);
    expect(done.status?.observedVersion).toBe('0.1.0');
  });

  it('keeps a DaemonSet whose pod does not fit a node Progressing, then Available once the node has room', async () => {
    const taint = `stackops.io/nao-small-${nao.ns.slice(-6)}`;
    const name = `nao-small-${nao.ns.slice(-6)}`;
    // Created with its small capacity (as kubelet registers a node): kwok's initialize stage keeps
    // what is there, so no later write of kwok's default capacity can race a patch of ours.
    await nao.client.create(Kinds.Node, smallNode(name, taint, '5m'));
    cleanups.push(() => nao.client.delete(Kinds.Node, { name }));
    type NodeStatus = KubeObject & {
      status?: { conditions?: { type: string; status: string }[]; allocatable?: Record<string, string> };
    };
    const ready = await waitUntil(`node ${name} Ready (kwok)`, async () => {
      const node = await nao.client.get<NodeStatus>(Kinds.Node, { name });
      return node?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') && node;
    });
    expect(ready.status?.allocatable?.['cpu']).toBe('5m');
    const setCpu = (cpu: string) =>
      nao.client.patch(Kinds.Node, { name }, { status: smallNode(name, taint, cpu)['status'] }, 'merge', {
        subresource: 'status',
      });
    await setSpec(nao.client, {
      linuxBridge: {},
      placementConfiguration: {
        workloads: {
          nodeSelector: { 'kubernetes.io/os': 'linux' },
          tolerations: [{ key: taint, operator: 'Exists', effect: 'NoSchedule' }],
        },
      },
    });
    // Both DaemonSets request 10m of CPU; the new node has 5m.
    const stuck = await waitForProgressing(nao.client, [
      `DaemonSet "${nao.ns}/kube-cni-linux-bridge-plugin" is not available (awaiting 1 nodes)`,
      `DaemonSet "${nao.ns}/bridge-marker" is not available (awaiting 1 nodes)`,
    ]);
    expect(condition(stuck, 'Available')).toMatchObject({ status: 'False', reason: 'Startup' });
    await new Promise((r) => setTimeout(r, 2000));
    await waitForConditions(nao.client, { Progressing: 'True', Available: 'False' }, 1000);

    await setCpu('4');
    await waitAvailable(nao.client, 90_000);
  });

  it('is Degraded naming the workload, the pod and its waiting reason while a pod fails, and recovers', async () => {
    await setSpec(nao.client, { linuxBridge: {} });
    await waitAvailable(nao.client, 90_000);
    const { items } = await nao.client.list(Kinds.Pod, {
      namespace: nao.ns,
      labelSelector: 'name=bridge-marker',
    });
    const pod = items.map((p) => p.metadata.name ?? '').sort()[0] ?? '';
    // kwok marks a pod ready once (while it has no IP) and then leaves its status alone, so this
    // stands until the pod is replaced: what kubelet reports for an image it cannot pull.
    const now = new Date().toISOString();
    await nao.client.patch(
      Kinds.Pod,
      { namespace: nao.ns, name: pod },
      {
        status: {
          conditions: ['Ready', 'ContainersReady'].map((type) => ({
            type,
            status: 'False',
            lastTransitionTime: now,
          })),
          containerStatuses: [
            {
              name: 'bridge-marker',
              ready: false,
              restartCount: 0,
              image: 'registry.test/missing:1',
              imageID: '',
              state: { waiting: { reason: 'ImagePullBackOff', message: 'Back-off pulling image' } },
            },
          ],
        },
      },
      'merge',
      { subresource: 'status' },
    );
    const line = `DaemonSet "${nao.ns}/bridge-marker": pod "${pod}" container "bridge-marker" is waiting: ImagePullBackOff`;
    const degraded = await waitUntil("Degraded with the pod's reason", async () => {
      const cr = await getConfig(nao.client);
      return condition(cr, 'Degraded')?.status === 'True' ? cr : undefined;
    });
    expect(condition(degraded, 'Degraded')).toMatchObject({ reason: 'PodsFailing', message: line });
    expect(condition(degraded, 'Available')).toMatchObject({ status: 'False', reason: 'Startup' });
    const { items: events } = await nao.client.list<KubeObject & { reason: string; message: string }>(
      Kinds.Event,
      { namespace: 'default' },
    );
    expect(
      events.some(
        (e) =>
          (e['involvedObject'] as { uid?: string }).uid === degraded.metadata.uid &&
          e['type'] === 'Warning' &&
          e.reason === 'Failed: PodsFailing' &&
          e.message.includes(pod),
      ),
    ).toBe(true);

    // The pod replaced (as a fixed image would be pulled): Degraded goes back to False.
    await nao.client.delete(Kinds.Pod, { namespace: nao.ns, name: pod });
    const recovered = await waitAvailable(nao.client, 90_000);
    expect(condition(recovered, 'Degraded')?.status).toBe('False');
  });
});
