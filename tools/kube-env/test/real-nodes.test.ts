import { existsSync, readdirSync, readFileSync, readlinkSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { CoreV1Api, type V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stopCluster } from '../src/cluster/control-plane.js';
import { clusterLayout } from '../src/cluster/layout.js';
import { type ControlPlane, startControlPlane } from '../src/control-plane.js';
import { cgroupRoot, realNodeSpec } from '../src/node/network.js';
import { ovsNetwork } from '../src/node/ovs.js';
import { ovsVsctl } from '../src/node/ovs-vsctl.js';
import { mountPoints } from '../src/node/teardown.js';
import { createTestNamespace, isPodReady, kubectlIn, waitFor } from './helpers.js';
import { busyboxImage, ensureBusyboxImage } from './support/busybox-image.js';

// A private cluster with two real nodes, each a host of its own (mount and network namespace),
// running Open vSwitch.
const name = `kube-env-two-${process.pid}`;
const layout = clusterLayout(name);
const [first, second] = [realNodeSpec(name, 1), realNodeSpec(name, 2)];

let cp: ControlPlane;
let core: CoreV1Api;

beforeAll(async () => {
  const busybox = await ensureBusyboxImage();
  cp = await startControlPlane({ name, nodes: 1, realNodes: 2, ovs: true, fresh: true, images: [busybox] });
  core = cp.kubeConfig.makeApiClient(CoreV1Api);
}, 300_000);
afterAll(() => stopCluster(name, { purge: true }));

const kubectl = (args: string[]) => kubectlIn(cp, args);

const isReady = isPodReady;

async function readyPod(namespace: string, pod: string): Promise<V1Pod> {
  await waitFor(
    `pod ${pod} Ready`,
    async () => isReady(await core.readNamespacedPod({ name: pod, namespace })),
    {
      timeoutMs: 90_000,
    },
  );
  return core.readNamespacedPod({ name: pod, namespace });
}

const busybox = (command: string[]) => ({
  image: busyboxImage,
  imagePullPolicy: 'IfNotPresent',
  command,
});

describe('two real nodes', () => {
  it('join Ready, each with its own IP, kubelet identity and pod subnet', async () => {
    const nodes = (await core.listNode({ labelSelector: 'type=real' })).items;
    expect(nodes.map((n) => n.metadata?.name).sort()).toEqual([first.name, second.name]);
    for (const [node, spec] of [
      [nodes.find((n) => n.metadata?.name === first.name), first],
      [nodes.find((n) => n.metadata?.name === second.name), second],
    ] as const) {
      expect(node?.status?.addresses).toContainEqual({ type: 'InternalIP', address: spec.ip });
      expect(node?.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
      // Like kind's nodes, each reports the whole machine.
      expect(node?.status?.capacity?.cpu).toBe(
        String(readFileSync('/proc/cpuinfo', 'utf8').match(/^processor/gm)?.length),
      );
    }
    expect(cp.realNodes.map((n) => n.name)).toEqual([first.name, second.name]);
    // No default route in any node's namespace.
    for (const node of cp.realNodes) {
      const routes = (await node.run(['ip', 'route'])).stdout;
      expect(routes, node.name).not.toMatch(/default/);
      expect(routes, node.name).toContain(realNodeSpec(name, node.index === 1 ? 2 : 1).podSubnet);
    }
  });

  it('lay each node out like a host: hostPath /etc/cni/net.d with Bidirectional and HostToContainer propagation', async () => {
    const namespace = await createTestNamespace(core, 'host-layout');
    const pod: V1Pod = {
      metadata: { name: 'cni-writer' },
      spec: {
        nodeName: second.name,
        volumes: [
          { name: 'cni', hostPath: { path: '/etc/cni/net.d' } },
          { name: 'multus', hostPath: { path: '/run/multus', type: 'Directory' } },
        ],
        containers: [
          {
            name: 'writer',
            ...busybox([
              'sh',
              '-c',
              'echo from-pod > /host/cni/99-pod.conf && mkdir -p /host/cni/sub && mount -t tmpfs podfs /host/cni/sub && touch /host/cni/sub/inside && sleep 3600',
            ]),
            securityContext: { privileged: true },
            volumeMounts: [{ name: 'cni', mountPath: '/host/cni', mountPropagation: 'Bidirectional' }],
          },
          {
            name: 'reader',
            ...busybox(['sleep', '3600']),
            volumeMounts: [
              { name: 'multus', mountPath: '/host/multus', mountPropagation: 'HostToContainer' },
            ],
          },
        ],
      },
    };
    await core.createNamespacedPod({ namespace, body: pod });
    await readyPod(namespace, 'cni-writer');
    const node = cp.realNodes.find((n) => n.name === second.name);
    if (!node) throw new Error('no second node');
    // The file is in the node's own folder, not on the machine's /etc/cni.
    await waitFor('the pod wrote its file', async () =>
      existsSync(join(node.hostRoot, 'etc/cni/net.d/99-pod.conf')),
    );
    expect(readFileSync(join(node.hostRoot, 'etc/cni/net.d/99-pod.conf'), 'utf8')).toBe('from-pod\n');
    expect(existsSync('/etc/cni/net.d/99-pod.conf')).toBe(false);
    expect(existsSync(join(realNodeHostRoot(1), 'etc/cni/net.d/99-pod.conf'))).toBe(false);
    // Bidirectional: the pod's mount reached the node (its mount namespace), and only the node.
    expect((await node.run(['cat', '/proc/self/mountinfo'])).stdout).toMatch(/ \/etc\/cni\/net\.d\/sub /);
    expect((await node.run(['ls', '/etc/cni/net.d/sub'])).stdout.trim()).toBe('inside');
    expect(readFileSync('/proc/self/mountinfo', 'utf8')).not.toContain('/etc/cni/net.d/sub');
    // HostToContainer: a mount the node makes later shows in the running container.
    await node.run([
      'sh',
      '-c',
      'mkdir -p /run/multus/late && mount -t tmpfs late /run/multus/late && touch /run/multus/late/seen',
    ]);
    const seen = await kubectl([
      'exec',
      '-n',
      namespace,
      'cni-writer',
      '-c',
      'reader',
      '--',
      'ls',
      '/host/multus/late',
    ]);
    expect(seen.trim()).toBe('seen');
  });

  it('let a pod on the second node reach by name a Service whose only endpoint is on the first', async () => {
    const namespace = await createTestNamespace(core, 'cross-node');
    await core.createNamespacedPod({
      namespace,
      body: {
        metadata: { name: 'backend', labels: { app: 'backend' } },
        spec: {
          nodeName: first.name,
          containers: [
            {
              name: 'web',
              ...busybox([
                'sh',
                '-c',
                'mkdir -p /www && hostname > /www/index.html && exec httpd -f -p 8080 -h /www',
              ]),
              readinessProbe: { httpGet: { path: '/index.html', port: 8080 }, periodSeconds: 1 },
            },
          ],
        },
      },
    });
    await core.createNamespacedService({
      namespace,
      body: {
        metadata: { name: 'backend' },
        spec: { selector: { app: 'backend' }, ports: [{ port: 80, targetPort: 8080 }] },
      },
    });
    await core.createNamespacedPod({
      namespace,
      body: {
        metadata: { name: 'client' },
        spec: { nodeName: second.name, containers: [{ name: 'c', ...busybox(['sleep', '3600']) }] },
      },
    });
    const backend = await readyPod(namespace, 'backend');
    const client = await readyPod(namespace, 'client');
    expect(backend.status?.podIP).toMatch(/^10\.245\.0\./);
    expect(client.status?.podIP).toMatch(/^10\.245\.1\./);
    // The client's DNS queries cross to CoreDNS beside the first node, its request to the backend too.
    const exec = (command: string) => kubectl(['exec', '-n', namespace, 'client', '--', 'sh', '-c', command]);
    const service = await core.readNamespacedService({ name: 'backend', namespace });
    expect(await exec(`nslookup backend.${namespace}.svc.cluster.local`)).toContain(
      `Address: ${service.spec?.clusterIP}`,
    );
    expect((await exec(`wget -qO- http://backend.${namespace}.svc/index.html`)).trim()).toBe('backend');
    // And from the first node's namespace to a pod on the second: a closed port answers (refused),
    // where an unrouted address would fail at once or time out.
    const probe = `require('net').connect(1, '${client.status?.podIP}').on('error', (e) => console.log(e.code)).setTimeout(3000, () => { console.log('timeout'); process.exit(0) })`;
    const answer = await cp.realNodes[0]?.run([process.execPath, '-e', probe]);
    expect(answer?.stdout.trim()).toBe('ECONNREFUSED');
  });
});

function realNodeHostRoot(index: number): string {
  return join(layout.root, index === 1 ? 'node' : `node-${index}`, 'host');
}

describe('Open vSwitch on the real nodes', () => {
  const ovsDaemons = ['ovs-vswitchd', 'ovsdb-server'];
  /** OVS daemons running in a node's mount namespace (by its inode), by name. */
  const daemonsIn = (mountNamespace: string) =>
    readdirSync('/proc')
      .filter((p) => /^\d+$/.test(p))
      .flatMap((p) => {
        try {
          if (readlinkSync(`/proc/${p}/ns/mnt`) !== `mnt:[${statSync(mountNamespace).ino}]`) return [];
          const comm = readFileSync(`/proc/${p}/comm`, 'utf8').trim();
          return ovsDaemons.includes(comm) ? [comm] : [];
        } catch {
          return [];
        }
      });

  it('runs ovsdb-server and ovs-vswitchd in each node, a netdev bridge br1 whose VLAN 100 crosses the nodes', async () => {
    for (const node of cp.realNodes) {
      expect(daemonsIn(node.mountNamespace).sort(), node.name).toEqual(ovsDaemons);
      // Where ovs-cni's hostPath /var/run/openvswitch finds it, in the node's own mount namespace.
      await node.run(['test', '-S', '/var/run/openvswitch/db.sock']);
      expect(
        (await node.run(ovsVsctl(name, ['get', 'bridge', ovsNetwork.bridge, 'datapath_type']))).stdout.trim(),
      ).toBe('netdev');
      expect((await node.run(ovsVsctl(name, ['list-ports', ovsNetwork.bridge]))).stdout.trim()).toBe(
        ovsNetwork.uplink,
      );
      // An access port on VLAN 100 on each node.
      await node.run(
        ovsVsctl(name, [
          'add-port',
          ovsNetwork.bridge,
          'v100',
          'tag=100',
          '--',
          'set',
          'interface',
          'v100',
          'type=internal',
        ]),
      );
      await node.run(['ip', 'addr', 'add', `192.168.100.${node.index}/24`, 'dev', 'v100']);
      await node.run(['ip', 'link', 'set', 'v100', 'up']);
    }
    // A TCP connection to a closed port is refused: the other node answered, across the uplinks.
    const connect = await cp.realNodes[0]!.run([
      process.execPath,
      '-e',
      `require('net').connect(1, '192.168.100.2').on('error', (e) => console.log(e.code)).setTimeout(10000, () => { console.log('timeout'); process.exit(0) })`,
    ]);
    expect(connect.stdout.trim()).toBe('ECONNREFUSED');
  }, 60_000);
});

describe('down with two real nodes', () => {
  it('leaves nothing of either node: processes, mount and network namespaces, mounts, cgroups', async () => {
    const state = JSON.parse(readFileSync(layout.stateFile, 'utf8')) as {
      components: Record<string, { pid: number }>;
    };
    const pids = Object.values(state.components).map((c) => c.pid);
    const ovsSockets = cp.realNodes.map((n) => join(n.hostRoot, 'run', 'openvswitch', 'db.sock'));
    expect(ovsSockets.filter((s) => existsSync(s))).toEqual(ovsSockets);
    const namespaces = cp.realNodes.flatMap((n) => [
      `mnt:[${statSync(n.mountNamespace).ino}]`,
      `net:[${statSync(n.netnsPath).ino}]`,
    ]);
    await stopCluster(name);

    const inNamespaces = () =>
      readdirSync('/proc')
        .filter((p) => /^\d+$/.test(p))
        .filter((p) => {
          try {
            return (
              !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${p}/stat`, 'utf8')) &&
              (namespaces.includes(readlinkSync(`/proc/${p}/ns/mnt`)) ||
                namespaces.includes(readlinkSync(`/proc/${p}/ns/net`)) ||
                pids.includes(Number(p)))
            );
          } catch {
            return false;
          }
        });
    const settled = Date.now() + 10_000;
    while (inNamespaces().length > 0 && Date.now() < settled) await new Promise((r) => setTimeout(r, 250));
    expect(inNamespaces()).toEqual([]);
    // Open vSwitch's daemons (in the namespaces above) and their sockets are gone too.
    expect(ovsSockets.filter((s) => existsSync(s))).toEqual([]);
    const mounts = mountPoints(readFileSync('/proc/self/mountinfo', 'utf8')).map((m) => m.path);
    expect(mounts.filter((m) => m.startsWith(`${layout.root}/`))).toEqual([]);
    for (const spec of [first, second])
      expect(existsSync(`/run/netns/${spec.netns}`), spec.netns).toBe(false);
    for (const hierarchy of ['cpu', 'memory', 'pids', 'freezer', 'systemd', 'unified']) {
      expect(existsSync(`/sys/fs/cgroup/${hierarchy}${cgroupRoot(name)}`), hierarchy).toBe(false);
    }
    expect(existsSync(realNodeHostRoot(2))).toBe(false);
    // The machine's standard paths got nothing from the nodes.
    expect(existsSync('/etc/cni/net.d') ? readdirSync('/etc/cni/net.d') : []).toEqual([]);
  }, 120_000);
});
