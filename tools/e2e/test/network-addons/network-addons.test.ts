import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { openstackNamespaceOnRealNode } from '@stackops/demo/openstack-pods';
import { NetworkAddonsConfigKind } from '@stackops/demo/targets';
import { ovsVsctl, realNodeName, runInRealNode } from '@stackops/kube-env';
import { Kinds, type KubeObject } from '@stackops/lib-common/client';
import { eventsIn, waitUntil } from '@stackops/lib-common/testing';
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
  expectSeedStorageIp,
  installNetworkAddons,
  installWhereabouts,
  loadNetworkImages,
  networkStatus,
  OPERAND_NAMESPACE,
  podOnNetworks,
  removeComponents,
  removeImageFromNode,
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
interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}
const client = adminClient();
const nac = { kind: NetworkAddonsConfigKind, name: 'cluster' };
const ns = 'network-e2e';
let images: Awaited<ReturnType<typeof installNetworkAddons>>['images'];

/** Three pings from a pod in the test namespace to `ip`, every one answered. */
async function expectPingsAnswered(pod: string, ip: string): Promise<void> {
  const ping = await kubectl(['exec', '-n', ns, pod, '--', 'ping', '-c', '3', '-W', '2', ip]);
  expect(ping).toMatch(/3 packets transmitted, 3 packets received/);
}
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
  it('runs the multus, linux-bridge and ovs-cni DaemonSets from the images built here; Available from their rollout', async () => {
    console.log(
      `[e2e] NetworkAddonsConfig Available ${Math.round(availableAfterMs / 1000)} s after it was applied`,
    );
    await waitForCondition(client, nac.kind, nac, 'Available', 'True');
    const expected: Record<string, string> = {
      multus: images.multus,
      'kube-cni-linux-bridge-plugin': images.linuxBridge,
      'bridge-marker': images.bridgeMarker,
      'ovs-cni-amd64': images.ovsCni,
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
    // the marker published the node's bridges (kube-env's pod bridge kenvbr0 among them), and
    // ovs-cni's marker each node's OVS bridge br1 (kube-env's `ovs` node option).
    const node = await client.get<KubeObject & { status: { capacity: Record<string, string> } }>(Kinds.Node, {
      name: realNodeName,
    });
    expect(node?.status.capacity['bridge.network.kubevirt.io/kenvbr0']).toBe('1k');
    for (const name of realNodes) {
      await until(
        `${name} has the node resource ovs-cni.network.kubevirt.io/br1`,
        async () => {
          const n = await client.get<KubeObject & { status: { capacity: Record<string, string> } }>(
            Kinds.Node,
            { name },
          );
          return n?.status.capacity['ovs-cni.network.kubevirt.io/br1'] === '1k' ? true : undefined;
        },
        60_000,
      );
    }
  });

  it('gives two pods on different nodes an OVS network (br1, VLAN 100, host-local) on which they ping each other', async () => {
    // host-local allocates per node, so each node's pod takes its address from its own NAD's part
    // of the subnet; both NADs are VLAN 100 of br1, one layer-2 network across the nodes.
    const ovsNad = (name: string, from: number) => ({
      apiVersion: 'k8s.cni.cncf.io/v1',
      kind: 'NetworkAttachmentDefinition',
      metadata: {
        name,
        namespace: ns,
        annotations: { 'k8s.v1.cni.cncf.io/resourceName': 'ovs-cni.network.kubevirt.io/br1' },
      },
      spec: {
        config: JSON.stringify({
          cniVersion: '0.4.0',
          name,
          type: 'ovs',
          bridge: 'br1',
          vlan: 100,
          ipam: {
            type: 'host-local',
            subnet: '192.168.62.0/24',
            rangeStart: `192.168.62.${from}`,
            rangeEnd: `192.168.62.${from + 9}`,
          },
        }),
      },
    });
    await applyObjects([
      ovsNad('ovs-a', 10),
      ovsNad('ovs-b', 20),
      podOnNetworks('ovs-a', ns, 'ovs-a', images.linuxBridge, realNodes[0]),
      podOnNetworks('ovs-b', ns, 'ovs-b', images.linuxBridge, realNodes[1]),
    ]);
    const pods = await podsReady(client, ns, 'e2e=ovs', 2, 120_000);
    expect(pods.map((p) => p.spec.nodeName).sort()).toEqual([...realNodes].sort());
    const ipOf = (pod: string) => {
      const p = pods.find((x) => x.metadata.name === pod)!;
      return networkStatus(p, pod).ips[0]!;
    };
    expect(ipOf('ovs-a')).toMatch(/^192\.168\.62\.1\d$/);
    expect(ipOf('ovs-b')).toMatch(/^192\.168\.62\.2\d$/);
    // Each pod's host end is an access port of its node's br1 with tag 100 (the uplink is a trunk).
    for (const node of realNodes) {
      const tagged = await runInRealNode(
        inject('e2eCluster'),
        ovsVsctl(inject('e2eCluster'), ['--bare', '--columns=name', 'find', 'port', 'tag=100']),
        node,
      );
      expect(tagged.stdout.trim().split('\n'), node).toHaveLength(1);
    }
    await expectPingsAnswered('ovs-a', ipOf('ovs-b'));
    await kubectl(['delete', 'pod', '-n', ns, '-l', 'e2e=ovs', '--wait']);
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
    await expectPingsAnswered('bridge-a', other);
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
    for (const ip of ips) expectSeedStorageIp(ip);
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
    await expectPingsAnswered(pods[0]!.metadata.name!, ips[1]!);
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

  it("is Degraded with the pod's reason while a component's image cannot be pulled on a node, and recovers", async () => {
    const cluster = inject('e2eCluster');
    const node = realNodes[1]!;
    const markerPod = async () =>
      (
        await client.list<PodShape>(Kinds.Pod, {
          namespace: OPERAND_NAMESPACE,
          labelSelector: 'name=bridge-marker',
        })
      ).items.find((p) => p.spec.nodeName === node && !p.metadata.deletionTimestamp);
    // The image gone from the node and its pod replaced: kubelet tries to pull it (nothing serves
    // it in the node's namespace) and reports ErrImagePull, then ImagePullBackOff.
    await removeImageFromNode(cluster, node, images.bridgeMarker);
    await kubectl(['delete', 'pod', '-n', OPERAND_NAMESPACE, (await markerPod())!.metadata.name!, '--wait']);
    const started = Date.now();
    const degraded = await until(
      'NetworkAddonsConfig Degraded with the pod and its reason',
      async () => {
        const cr = await client.get<KubeObject & { status?: { conditions?: Condition[] } }>(nac.kind, nac);
        const d = cr?.status?.conditions?.find((c) => c.type === 'Degraded');
        return d?.status === 'True' ? { cr, d } : undefined;
      },
      120_000,
      1000,
    );
    console.log(`[e2e] Degraded ${Math.round((Date.now() - started) / 1000)} s after the pod was replaced`);
    const pod = (await markerPod())!.metadata.name!;
    expect(degraded.d.reason).toBe('PodsFailing');
    expect(degraded.d.message).toMatch(
      new RegExp(
        `^DaemonSet "${OPERAND_NAMESPACE}/bridge-marker": pod "${pod}" container "bridge-marker" is waiting: (ErrImagePull|ImagePullBackOff)$`,
      ),
    );
    // Events follow a pass's writes without being waited for.
    await waitUntil(
      `a "Failed: PodsFailing" Event naming pod ${pod}`,
      async () =>
        (await eventsIn(client, 'default')).some(
          (e) =>
            e.involvedObject?.uid === degraded.cr?.metadata.uid &&
            e.reason === 'Failed: PodsFailing' &&
            e.message?.includes(pod),
        ),
      { timeoutMs: 60_000, intervalMs: 500 },
    );
    // The image back on the node: the pod starts (replaced at once rather than after kubelet's
    // pull backoff) and the condition goes back to False.
    await loadNetworkImages(cluster, ['bridgeMarker'], node);
    await kubectl(['delete', 'pod', '-n', OPERAND_NAMESPACE, pod, '--wait']);
    await waitForCondition(client, nac.kind, nac, 'Available', 'True', 120_000);
    await waitForCondition(client, nac.kind, nac, 'Degraded', 'False');
  });

  it('removing multus, linuxBridge and ovs removes their DaemonSets and multus’ node configuration; new pods still get a network', async () => {
    const cluster = inject('e2eCluster');
    /** The node's CNI folders, as the node itself sees them (its mount namespace). */
    const onNode = async (node: string) => {
      const ls = async (dir: string) =>
        (await runInRealNode(cluster, ['ls', '-1', dir], node)).stdout.split('\n').filter(Boolean);
      return { conf: await ls('/etc/cni/net.d'), bin: await ls('/opt/cni/bin') };
    };
    const installed = ['multus-shim', 'bridge', 'tuning', 'cnv-bridge', 'cnv-tuning'];
    for (const node of realNodes) {
      const before = await onNode(node);
      expect(before.conf, node).toEqual(expect.arrayContaining(['00-multus.conf', '10-kube-env.conflist']));
      expect(before.bin, node).toEqual(expect.arrayContaining(installed));
    }
    const started = Date.now();
    await removeComponents();
    for (const name of ['multus', 'kube-cni-linux-bridge-plugin', 'bridge-marker', 'ovs-cni-amd64']) {
      await until(
        `DaemonSet ${name} and its pods gone`,
        async () => {
          const ds = await client.get(Kinds.DaemonSet, { namespace: OPERAND_NAMESPACE, name });
          const pods = (
            await client.list<PodShape>(Kinds.Pod, { namespace: OPERAND_NAMESPACE })
          ).items.filter((p) => p.metadata.ownerReferences?.some((o) => o.name === name));
          return ds === undefined && pods.length === 0 ? true : undefined;
        },
        120_000,
      );
    }
    console.log(
      `[e2e] components' DaemonSets and pods gone ${Math.round((Date.now() - started) / 1000)} s after removal`,
    );
    await waitForCondition(client, nac.kind, nac, 'Available', 'True');
    for (const node of realNodes) {
      const after = await onNode(node);
      // multus' pod removes its configuration as it stops (preStop, as upstream's): the node's own
      // network is the default again. The plugins the init containers copied stay, as upstream's do.
      expect(after.conf, node).not.toContain('00-multus.conf');
      expect(after.conf, node).toContain('10-kube-env.conflist');
      expect(after.bin, node).toEqual(expect.arrayContaining(installed));
    }
    // The nodes still give pods their network: one pod per real node, each Ready with its pod IP.
    await applyObjects(
      realNodes.map((node, i) => ({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: `after-${i}`, namespace: ns, labels: { e2e: 'after' } },
        spec: {
          terminationGracePeriodSeconds: 0,
          nodeSelector: { 'kubernetes.io/hostname': node },
          containers: [{ name: 'main', image: images.linuxBridge, command: ['sleep', 'infinity'] }],
        },
      })),
    );
    const pods = await podsReady(client, ns, 'e2e=after', realNodes.length, 120_000);
    expect(pods.map((p) => p.spec.nodeName).sort()).toEqual([...realNodes].sort());
    for (const p of pods) expect(p.status?.podIP).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    await kubectl(['delete', 'pod', '-n', ns, '-l', 'e2e=after', '--wait']);
  });
});
