import { run } from '../util/run.js';
import type { RealNodeSpec } from './network.js';

/**
 * Links every real node has besides its node IP, for secondary networks (Multus attachments).
 *
 * `enp7s0.21` is the master the seeds' NetworkAttachmentDefinition `storage` names: on the seeds'
 * hosts, VLAN 21 of the NIC enp7s0. This kernel has no 802.1Q support (no VLAN links, no bridge
 * VLAN filtering), so here it is a veth of that name in each node's namespace whose other end is
 * a port of the bridge `kenvstor` in the first node's namespace: a separate layer-2 segment joining
 * the nodes, as VLAN 21 would, carrying no address of its own and linked to nothing outside
 * kube-env's namespaces. macvlan attachments on it reach each other within and across nodes.
 */
const nodeLinks = {
  storageLink: 'enp7s0.21',
  storageBridge: 'kenvstor',
} as const;

export function configureNodeLinks(nodes: readonly RealNodeSpec[]): Promise<void> {
  return joinNodesOnSegment(nodes, {
    bridge: nodeLinks.storageBridge,
    portPrefix: 'kstor',
    link: nodeLinks.storageLink,
  });
}

/**
 * A layer-2 segment between the nodes: a Linux bridge in the first node's namespace, and per node
 * a veth whose inner end (`link`) is in the node's namespace and whose outer end is a bridge port.
 */
export async function joinNodesOnSegment(
  nodes: readonly RealNodeSpec[],
  segment: { bridge: string; portPrefix: string; link: string },
): Promise<void> {
  const [first] = nodes;
  if (!first) return;
  const ip1 = (...args: string[]) => run(['ip', '-n', first.netns, ...args]);
  await ip1('link', 'add', segment.bridge, 'type', 'bridge');
  await ip1('link', 'set', segment.bridge, 'up');
  for (const node of nodes) {
    const port = `${segment.portPrefix}${node.index}`;
    await ip1('link', 'add', port, 'type', 'veth', 'peer', 'name', segment.link, 'netns', node.netns);
    await ip1('link', 'set', port, 'master', segment.bridge, 'up');
    await run(['ip', '-n', node.netns, 'link', 'set', segment.link, 'up']);
  }
}
