import { fakeNodeTaint, realNodeLabels } from '@stackops/kube-env';
import { Kinds, type KubeClient, type KubeObject } from '@stackops/lib-common/client';

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

async function setTaints(client: KubeClient, node: NodeShape, taints: Taint[]): Promise<void> {
  await client.patch(
    Kinds.Node,
    { name: node.metadata.name ?? '' },
    { metadata: { resourceVersion: node.metadata.resourceVersion }, spec: { taints } },
    'merge',
  );
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
    const taints = node.spec?.taints ?? [];
    if (isRealNode(node)) {
      if (!taints.some((t) => t.key === realNodeTaint.key))
        await setTaints(client, node, [...taints, { ...realNodeTaint }]);
    } else if (taints.some((t) => t.key === fakeNodeTaint.key)) {
      await setTaints(
        client,
        node,
        taints.filter((t) => t.key !== fakeNodeTaint.key),
      );
    }
  }
}
