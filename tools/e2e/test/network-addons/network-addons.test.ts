import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { openstackNamespaceOnRealNode } from '@stackops/demo/openstack-pods';
import { NetworkAddonsConfigKind } from '@stackops/demo/targets';
import { realNodeName } from '@stackops/kube-env';
import { Kinds, type KubeObject } from '@stackops/lib-common/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { podsReady, until } from '../openstack/support.js';
import {
  adminClient,
  deleteNamespaces,
  kubectl,
  type PodShape,
  realNodes,
  waitForCondition,
} from '../support.js';
import {
  applyObjects,
  installNetworkAddons,
  installWhereabouts,
  networkStatus,
  OPERAND_NAMESPACE,
  podOnNetworks,
  seedStorageNad,
  uninstallNetworkAddons,
  uninstallWhereabouts,
} from './support.js';

/**
 * network-addons-operator's Multus and linux-bridge components, run for real: the operator's own
 * DaemonSets on the real node from the images built here from Go modules, NetworkAddonsConfig
 * Available from their rollout, and pods that get the secondary interfaces their
 * NetworkAttachmentDefinitions describe (bridge + host-local; the seeds' macvlan + whereabouts).
 */
const execFileP = promisify(execFile);
const client = adminClient();
const nac = { kind: NetworkAddonsConfigKind, name: 'cluster' };
const ns = 'network-e2e';
let images: Awaited<ReturnType<typeof installNetworkAddons>>['images'];
let availableAfterMs = 0;

beforeAll(async () => {
  ({ images, availableAfterMs } = await installNetworkAddons(inject('e2eCluster')));
  await openstackNamespaceOnRealNode(client, ns);
});

afterAll(async () => {
  await deleteNamespaces(client, [ns]);
  await uninstallWhereabouts();
  await uninstallNetworkAddons();
});

describe('network add-ons on the real node', () => {
  it('runs the multus and linux-bridge DaemonSets from the images built here; Available from their rollout', async () => {
    console.log(
      `[e2e] NetworkAddonsConfig Available ${Math.round(availableAfterMs / 1000)} s after it was applied`,
    );
    await waitForCondition(client, nac.kind, nac, 'Available', 'True');
    const expected: Record<string, string> = {
      multus: images.multus,
      'kube-cni-linux-bridge-plugin': images.linuxBridge,
      'bridge-marker': images.bridgeMarker,
    };
    for (const [name, image] of Object.entries(expected)) {
      const ds = await client.get<KubeObject & { status?: Record<string, number> }>(Kinds.DaemonSet, {
        namespace: OPERAND_NAMESPACE,
        name,
      });
      expect(ds?.status?.['numberReady'], name).toBe(realNodes.length);
      const pods = (await client.list<PodShape>(Kinds.Pod, { namespace: OPERAND_NAMESPACE })).items.filter(
        (p) => p.metadata.ownerReferences?.some((o) => o.name === name),
      );
      expect(pods.map((p) => [p.spec.nodeName, p.spec.containers[0]?.image]).sort()).toEqual(
        [...realNodes].sort().map((node) => [node, image]),
      );
    }
    // What the pods did on the node: multus wrote its configuration, linux-bridge its plugins,
    // the marker published the node's bridges (kube-env's pod bridge kenvbr0 among them).
    const node = await client.get<KubeObject & { status: { capacity: Record<string, string> } }>(Kinds.Node, {
      name: realNodeName,
    });
    expect(node?.status.capacity['bridge.network.kubevirt.io/kenvbr0']).toBe('1k');
  });

  it('gives two pods a bridge network (cnv-bridge + host-local) on which they ping each other', async () => {
    await applyObjects([
      {
        apiVersion: 'k8s.cni.cncf.io/v1',
        kind: 'NetworkAttachmentDefinition',
        metadata: { name: 'e2e-bridge', namespace: ns },
        spec: {
          config: JSON.stringify({
            cniVersion: '0.3.1',
            name: 'e2e-bridge',
            type: 'cnv-bridge',
            bridge: 'e2ebr1',
            ipam: { type: 'host-local', subnet: '192.168.61.0/24' },
          }),
        },
      },
      podOnNetworks('bridge-a', ns, 'e2e-bridge', images.linuxBridge),
      podOnNetworks('bridge-b', ns, 'e2e-bridge', images.linuxBridge),
    ]);
    const pods = await podsReady(client, ns, 'e2e=bridge', 2, 120_000);
    const ips = pods.map((p) => networkStatus(p, 'e2e-bridge').ips[0]);
    for (const ip of ips) expect(ip).toMatch(/^192\.168\.61\.\d+$/);
    const addr = await kubectl([
      'exec',
      '-n',
      ns,
      'bridge-a',
      '--',
      'ip',
      '-4',
      '-o',
      'addr',
      'show',
      'net1',
    ]);
    expect(addr).toContain(`${ips.find((_, i) => pods[i]?.metadata.name === 'bridge-a')}/24`);
    const other = ips[pods.findIndex((p) => p.metadata.name === 'bridge-b')]!;
    const ping = await kubectl(['exec', '-n', ns, 'bridge-a', '--', 'ping', '-c', '3', '-W', '2', other]);
    expect(ping).toMatch(/3 packets transmitted, 3 packets received/);
    await kubectl(['delete', 'pod', '-n', ns, '-l', 'e2e=bridge', '--wait']);
  });

  it("gives two pods the seeds' storage network (macvlan on enp7s0.21 + whereabouts 172.18.0.50-100); released on delete", async () => {
    await installWhereabouts(inject('e2eCluster'));
    await applyObjects([
      seedStorageNad(ns),
      podOnNetworks('storage-a', ns, 'storage', images.linuxBridge),
      podOnNetworks('storage-b', ns, 'storage', images.linuxBridge),
    ]);
    const pods = await podsReady(client, ns, 'e2e=storage', 2, 180_000);
    const ips = pods.map((p) => networkStatus(p, 'storage').ips[0]!);
    for (const ip of ips) {
      const last = Number(ip.split('.')[3]);
      expect(ip.startsWith('172.18.0.')).toBe(true);
      expect(last).toBeGreaterThanOrEqual(50);
      expect(last).toBeLessThanOrEqual(100);
    }
    // net1's lower link is the node's enp7s0.21 (macvlan): its iflink is that link's index.
    const iflink = await kubectl([
      'exec',
      '-n',
      ns,
      pods[0]!.metadata.name!,
      '--',
      'cat',
      '/sys/class/net/net1/iflink',
    ]);
    const master = await execFileP('nsenter', [
      `--net=${inject('netnsPath')}`,
      '--',
      'ip',
      '-o',
      'link',
      'show',
      'enp7s0.21',
    ]);
    expect(`${iflink.trim()}:`).toBe(master.stdout.split(' ')[0]);
    const ping = await kubectl([
      'exec',
      '-n',
      ns,
      pods[0]!.metadata.name!,
      '--',
      'ping',
      '-c',
      '3',
      '-W',
      '2',
      ips[1]!,
    ]);
    expect(ping).toMatch(/3 packets transmitted, 3 packets received/);
    const allocated = async () => {
      const pools = await client.list<KubeObject & { spec: { allocations?: Record<string, unknown> } }>(
        {
          group: 'whereabouts.cni.cncf.io',
          version: 'v1alpha1',
          plural: 'ippools',
          kind: 'IPPool',
          namespaced: true,
        },
        {},
      );
      return pools.items.reduce((n, p) => n + Object.keys(p.spec.allocations ?? {}).length, 0);
    };
    expect(await allocated()).toBe(2);
    await kubectl(['delete', 'pod', '-n', ns, '-l', 'e2e=storage', '--wait']);
    await until(
      'the whereabouts allocations released',
      async () => ((await allocated()) === 0 ? true : undefined),
      60_000,
    );
  });
});
