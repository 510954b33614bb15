import { fakeNodeTaint, realNodeLabels } from '@stackops/kube-env';
import { isConflict, Kinds, type KubeClient, type KubeObject } from '@stackops/lib-common/client';

interface Taint {
  key: string;
  value?: string;
  effect: string;
}
type NodeShape = KubeObject & { spec?: { taints?: Taint[] } };

/** Every real node carries kube-env's real-node labels (`--real-nodes N`: all N of them). */
const isRealNode = (node: NodeShape): boolean =>
  Object.entries(realNodeLabels).every(([k, v]) => node.metadata.labels?.[k] === v);

/** Keeps ordinary pods off the real nodes: only what tolerates it (the operators) runs there. */
export const realNodeTaint = { key: 'stackops.dev/real-node', value: 'true', effect: 'NoSchedule' } as const;

/**
 * Chart values that put an operator on the real node: select it, tolerate its taint. The operator
 * then runs for real, from its image, with its chart's probes, ServiceAccount and RBAC.
 */
export const operatorOnRealNodeValues = {
  nodeSelector: { ...realNodeLabels },
  tolerations: [
    { key: realNodeTaint.key, operator: 'Equal', value: realNodeTaint.value, effect: realNodeTaint.effect },
  ],
};

/**
 * Sets a node's taints to `change(current)` (undefined: leave them). resourceVersion makes the
 * merge patch conditional, so a taint added meanwhile is not lost; the kubelet and the node
 * controller write nodes all the time, so a conflict re-reads the node and tries again.
 */
export async function changeTaints(
  client: KubeClient,
  listed: NodeShape,
  change: (taints: Taint[]) => Taint[] | undefined,
) {
  const name = listed.metadata.name ?? '';
  let node: NodeShape | undefined = listed;
  for (let attempt = 1; ; attempt++) {
    if (!node) throw new Error(`node ${name} is gone`);
    const taints = change(node.spec?.taints ?? []);
    if (!taints) return;
    try {
      await client.patch(
        Kinds.Node,
        { name },
        { metadata: { resourceVersion: node.metadata.resourceVersion }, spec: { taints } },
        'merge',
      );
      return;
    } catch (err) {
      if (!isConflict(err) || attempt === 10) throw err;
    }
    node = await client.get<NodeShape>(Kinds.Node, { name });
  }
}

/**
 * kube-env puts ordinary pods on the real node (kwok's nodes are tainted). What the operators
 * deploy cannot run there yet: its images (keystone, MariaDB, multus, haproxy, …) are not on this
 * machine. So the other way round: kwok's nodes lose their taint and simulate those workloads, as
 * without a real node, while every real node is tainted and runs only the operators, which tolerate it.
 */
export async function keepWorkloadsOnKwok(client: KubeClient): Promise<void> {
  const { items } = await client.list<NodeShape>(Kinds.Node);
  for (const node of items) {
    if (isRealNode(node)) {
      await changeTaints(client, node, (taints) =>
        taints.some((t) => t.key === realNodeTaint.key) ? undefined : [...taints, { ...realNodeTaint }],
      );
    } else {
      await changeTaints(client, node, (taints) =>
        taints.some((t) => t.key === fakeNodeTaint.key)
          ? taints.filter((t) => t.key !== fakeNodeTaint.key)
          : undefined,
      );
    }
  }
}
