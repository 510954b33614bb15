import { KubeConfig } from '@kubernetes/client-node';
import { createKubeClient, Kinds, type KubeObject } from '@stackops/lib-common/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changeTaints } from '../src/real-node.js';

type NodeShape = KubeObject & { spec?: { taints?: { key: string; value?: string; effect: string }[] } };

/**
 * The demo taints nodes while the kubelet and the node controller write them. A node read before
 * someone else's write must still get its taint, and keep the other writer's.
 */
const name = `demo-taints-${process.pid}`;
// No pod of the shared cluster's other tests may land on this node.
const keepOff = { key: 'stackops.dev/demo-taints-test', value: 'true', effect: 'NoSchedule' };
let client: ReturnType<typeof createKubeClient>;

beforeAll(async () => {
  const kc = new KubeConfig();
  kc.loadFromFile(process.env['KUBECONFIG'] ?? '');
  client = createKubeClient(kc, { fieldManager: 'stackops-demo-taints-test' });
  await client.create(Kinds.Node, {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name },
    spec: { taints: [keepOff] },
  } as KubeObject);
});

afterAll(async () => {
  await client?.delete(Kinds.Node, { name }).catch(() => undefined);
});

describe('changeTaints', () => {
  it('re-reads a node changed since it was read, keeps the other writer’s taint, and adds its own', async () => {
    const stale = await client.get<NodeShape>(Kinds.Node, { name });
    const other = { key: 'example.com/other-writer', effect: 'NoSchedule' };
    await client.patch(Kinds.Node, { name }, { spec: { taints: [keepOff, other] } }, 'merge');

    const ours = { key: 'stackops.dev/real-node', value: 'true', effect: 'NoSchedule' };
    let calls = 0;
    await changeTaints(client, stale!, (taints) => {
      calls++;
      return taints.some((t) => t.key === ours.key) ? undefined : [...taints, ours];
    });

    // The first try used the stale copy and met a conflict; the second saw the other writer's taint.
    expect(calls).toBe(2);
    const live = await client.get<NodeShape>(Kinds.Node, { name });
    expect(live?.spec?.taints?.map((t) => t.key).sort()).toEqual([keepOff.key, other.key, ours.key].sort());
  });
});
