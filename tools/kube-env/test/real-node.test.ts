import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, readlinkSync, statSync } from 'node:fs';
import { promisify } from 'node:util';
import { CoreV1Api, type V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stopCluster } from '../src/cluster/control-plane.js';
import { clusterLayout } from '../src/cluster/layout.js';
import { readPid } from '../src/cluster/processes.js';
import { type ControlPlane, startControlPlane } from '../src/control-plane.js';
import { nodeLayout } from '../src/node/layout.js';
import { cgroupRoot, fakeNodeTaint, netnsPath, realNodeName, realNodeNetwork } from '../src/node/network.js';
import {
  hostPaths,
  kubeletKernelValues,
  mountPoints,
  nodeKernelMinimums,
  recordedKernelValues,
} from '../src/node/teardown.js';
import { kubeEnvRoot } from '../src/paths.js';
import { isPodReady, kubectlIn, waitFor } from './helpers.js';
import { tcpSocketsOf } from './sockets.js';
import { busyboxImage, ensureBusyboxImage } from './support/busybox-image.js';

// A private cluster with a real node (and one kwok node beside it); the shared one has none.
const name = `kube-env-real-${process.pid}`;
const layout = clusterLayout(name);
const execFileAsync = promisify(execFile);
const readSysctls = () =>
  Object.fromEntries(recordedKernelValues.map((k) => [k, Number(readFileSync(`/proc/sys/${k}`, 'utf8'))]));
const hostRecordFile = `${kubeEnvRoot()}/real-node-host.json`;
/** Other clusters' real nodes using the host at the start: they keep the kernel values and host paths. */
const otherRealNodes = () => {
  if (!existsSync(hostRecordFile)) return [];
  const users = (JSON.parse(readFileSync(hostRecordFile, 'utf8')) as { users: Record<string, string> }).users;
  return Object.entries(users)
    .filter(([cluster, netns]) => cluster !== name && existsSync(`/run/netns/${netns}`))
    .map(([cluster]) => cluster);
};

let cp: ControlPlane;
let core: CoreV1Api;
let sysctlsBefore: Record<string, number>;
let hostPathsBefore: Record<string, boolean>;

beforeAll(async () => {
  // What the machine looked like before any real node: the host record knows if one is running.
  const record = existsSync(hostRecordFile)
    ? (JSON.parse(readFileSync(hostRecordFile, 'utf8')) as {
        sysctls: Record<string, number>;
        created: string[];
      })
    : undefined;
  sysctlsBefore = { ...readSysctls(), ...record?.sysctls };
  hostPathsBefore = Object.fromEntries(
    hostPaths.map((p) => [
      p,
      record ? !record.created.some((c) => p === c || p.startsWith(`${c}/`)) : existsSync(p),
    ]),
  );
  const busybox = await ensureBusyboxImage();
  cp = await startControlPlane({ name, nodes: 1, realNode: true, fresh: true, images: [busybox] });
  core = cp.kubeConfig.makeApiClient(CoreV1Api);
}, 300_000);
afterAll(() => stopCluster(name, { purge: true }));

const kubectl = (args: string[]) => kubectlIn(cp, args);

async function createNamespace(prefix: string): Promise<string> {
  const ns = await core.createNamespace({ body: { metadata: { generateName: `${prefix}-` } } });
  const namespace = ns.metadata?.name ?? '';
  await waitFor(`default ServiceAccount in ${namespace}`, async () =>
    core.readNamespacedServiceAccount({ name: 'default', namespace }).then(
      () => true,
      () => false,
    ),
  );
  return namespace;
}

/** busybox's httpd serving one page, Ready through an HTTP readiness probe on `probePort`. */
function webPod(namePrefix: string, probePort: number): V1Pod {
  return {
    metadata: { name: namePrefix, labels: { app: namePrefix } },
    spec: {
      containers: [
        {
          name: 'web',
          image: busyboxImage,
          imagePullPolicy: 'IfNotPresent',
          command: [
            '/bin/sh',
            '-c',
            'mkdir -p /www && hostname > /www/index.html && echo serving on 8080 && exec httpd -f -p 8080 -h /www',
          ],
          readinessProbe: { httpGet: { path: '/index.html', port: probePort }, periodSeconds: 1 },
        },
      ],
    },
  };
}

async function podOf(namespace: string, pod: string): Promise<V1Pod> {
  return core.readNamespacedPod({ name: pod, namespace });
}

const isReady = isPodReady;

describe('a real node', () => {
  it('joins the cluster Ready, labelled, with kwok nodes tainted beside it', async () => {
    const node = await core.readNode({ name: realNodeName });
    expect(node.metadata?.labels?.type).toBe('real');
    expect(node.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
    expect(node.status?.addresses).toContainEqual({ type: 'InternalIP', address: realNodeNetwork.nodeIp });
    expect(node.status?.nodeInfo?.containerRuntimeVersion).toMatch(/^containerd:\/\//);
    expect(node.spec?.taints ?? []).toEqual([]);
    const kwok = await core.readNode({ name: 'kwok-node-0' });
    expect(kwok.spec?.taints).toContainEqual(fakeNodeTaint);
    expect(cp.realNode?.name).toBe(realNodeName);
    // Several nodes' kubelets, kube-proxies and containerds outgrow the default inotify limits.
    const kernel = readSysctls();
    for (const [k, v] of Object.entries(nodeKernelMinimums)) expect(kernel[k], k).toBeGreaterThanOrEqual(v);
  });

  it('runs real software: a pod becomes Ready only through its probe, and logs and exec work', async () => {
    const namespace = await createNamespace('real-web');
    await core.createNamespacedPod({ namespace, body: webPod('web', 8080) });
    await core.createNamespacedPod({ namespace, body: webPod('web-wrong-probe', 9999) });
    await waitFor('pod web Ready', async () => isReady(await podOf(namespace, 'web')), { timeoutMs: 60_000 });
    const web = await podOf(namespace, 'web');
    expect(web.spec?.nodeName).toBe(realNodeName);
    expect(web.status?.podIP).toMatch(/^10\.245\.0\./);

    // Same image and program, probe on a port nothing listens on: running, never Ready.
    await waitFor(
      'pod web-wrong-probe Running',
      async () => (await podOf(namespace, 'web-wrong-probe')).status?.phase === 'Running',
    );
    await new Promise((r) => setTimeout(r, 5000));
    const wrong = await podOf(namespace, 'web-wrong-probe');
    expect(wrong.status?.phase).toBe('Running');
    expect(isReady(wrong)).toBe(false);

    expect(await kubectl(['logs', '-n', namespace, 'web'])).toContain('serving on 8080');
    expect((await kubectl(['exec', '-n', namespace, 'web', '--', 'cat', '/www/index.html'])).trim()).toBe(
      'web',
    );

    // From a test, pod IPs are reached inside the node's namespace (the host has no route to them).
    const page = await cp.realNode?.run([
      process.execPath,
      '-e',
      `require('http').get('http://${web.status?.podIP}:8080/index.html', (r) => r.pipe(process.stdout))`,
    ]);
    expect(page?.stdout.trim()).toBe('web');
  });

  it('resolves and reaches Services by name through their VIPs, kubernetes.default.svc included', async () => {
    const namespace = await createNamespace('real-dns');
    await core.createNamespacedPod({ namespace, body: webPod('backend', 8080) });
    await core.createNamespacedService({
      namespace,
      body: {
        metadata: { name: 'backend' },
        spec: { selector: { app: 'backend' }, ports: [{ port: 80, targetPort: 8080 }] },
      },
    });
    const client: V1Pod = {
      metadata: { name: 'client' },
      spec: {
        containers: [
          {
            name: 'client',
            image: busyboxImage,
            imagePullPolicy: 'IfNotPresent',
            command: ['sleep', '3600'],
          },
        ],
      },
    };
    await core.createNamespacedPod({ namespace, body: client });
    await waitFor(
      'backend and client Ready',
      async () => isReady(await podOf(namespace, 'backend')) && isReady(await podOf(namespace, 'client')),
    );
    const service = await core.readNamespacedService({ name: 'backend', namespace });
    const exec = (command: string) => kubectl(['exec', '-n', namespace, 'client', '--', 'sh', '-c', command]);

    expect(await exec('cat /etc/resolv.conf')).toContain(`nameserver ${realNodeNetwork.dnsServiceIp}`);
    const lookup = await exec(`nslookup backend.${namespace}.svc.cluster.local`);
    expect(lookup).toContain(`Address: ${service.spec?.clusterIP}`);
    // Through the search path, as applications resolve it; the page is the backend's hostname.
    expect((await exec(`wget -qO- http://backend.${namespace}.svc/index.html`)).trim()).toBe('backend');

    expect(await exec('nslookup kubernetes.default.svc.cluster.local')).toContain(
      `Address: ${realNodeNetwork.kubernetesServiceIp}`,
    );
    const version = JSON.parse(
      await exec('wget -qO- --no-check-certificate https://kubernetes.default.svc/version'),
    );
    expect(version.gitVersion).toBe('v1.34.4');
  });

  it('has no route out: no default route in the pod or the node, and a foreign address is unreachable', async () => {
    const namespace = await createNamespace('real-route');
    await core.createNamespacedPod({
      namespace,
      body: {
        metadata: { name: 'probe' },
        spec: {
          containers: [
            {
              name: 'probe',
              image: busyboxImage,
              imagePullPolicy: 'IfNotPresent',
              command: ['sleep', '3600'],
            },
          ],
        },
      },
    });
    await waitFor('probe Ready', async () => isReady(await podOf(namespace, 'probe')));
    const podRoutes = await kubectl(['exec', '-n', namespace, 'probe', '--', 'ip', 'route']);
    expect(podRoutes).toContain(realNodeNetwork.serviceSubnet);
    expect(podRoutes).not.toMatch(/default/);
    // 192.0.2.1 (TEST-NET-1) is never routable; with no route the connect fails before any packet.
    const connect = await execFileAsync(
      cp.kubectl,
      ['exec', '-n', namespace, 'probe', '--', 'nc', '-w', '2', '192.0.2.1', '80'],
      {
        env: { ...process.env, KUBECONFIG: cp.kubeconfigPath },
      },
    ).then(
      () => 'connected',
      (error: { stderr?: string }) => error.stderr ?? '',
    );
    expect(connect).toMatch(/Network is unreachable/);

    const nodeRoutes = (await cp.realNode?.run(['ip', 'route']))?.stdout ?? '';
    expect(nodeRoutes).toContain(realNodeNetwork.nodeSubnet);
    expect(nodeRoutes).not.toMatch(/default/);
    const fromNode = await cp.realNode?.run([
      process.execPath,
      '-e',
      "require('net').connect(80, '192.0.2.1').on('error', (e) => { console.log(e.code); process.exit(0) }).on('connect', () => { console.log('connected'); process.exit(0) })",
    ]);
    expect(fromNode?.stdout.trim()).toBe('ENETUNREACH');
  });

  it("lets only authenticated, authorised clients use the kubelet's API (no anonymous access)", async () => {
    const pki = nodeLayout(layout.root).pki;
    const get = async (cert?: string) => {
      const tlsOptions = cert
        ? `cert: fs.readFileSync('${pki}/${cert}.crt'), key: fs.readFileSync('${pki}/${cert}.key'),`
        : '';
      const script = `const fs = require('fs'); require('https').get({ host: '${realNodeNetwork.nodeIp}', port: ${realNodeNetwork.kubeletPort}, path: '/pods', ca: fs.readFileSync('${layout.pki}/ca.crt'), ${tlsOptions} }, (res) => { console.log(String(res.statusCode)); res.resume() }).on('error', (e) => console.log(e.message))`;
      return (await cp.realNode?.run([process.execPath, '-e', script]))?.stdout.trim();
    };
    expect(await get()).toBe('401');
    // A valid client certificate without kubelet permissions (CoreDNS's identity) is refused.
    expect(await get('coredns')).toBe('403');
    // The API server's own client certificate, bound to system:kubelet-api-admin (the CA check passed too).
    expect(await get('apiserver-kubelet-client')).toBe('200');
  });

  it('keeps kwok nodes working beside it, for pods that tolerate their taint', async () => {
    const namespace = await createNamespace('real-kwok');
    await core.createNamespacedPod({
      namespace,
      body: {
        metadata: { name: 'simulated' },
        spec: {
          nodeSelector: { type: 'kwok' },
          tolerations: [{ key: fakeNodeTaint.key, operator: 'Exists', effect: 'NoSchedule' }],
          containers: [{ name: 'main', image: 'registry.invalid/never-pulled:1' }],
        },
      },
    });
    await waitFor('simulated pod Ready on kwok', async () => isReady(await podOf(namespace, 'simulated')));
    expect((await podOf(namespace, 'simulated')).spec?.nodeName).toBe('kwok-node-0');
  });

  it('listens on the host only on 127.0.0.1; everything else runs inside the node namespace', () => {
    const hostNetns = readlinkSync('/proc/self/ns/net');
    const nodeNetns = `net:[${statSync(netnsPath(name)).ino}]`;
    const forwarder = readPid(layout.pidFile('port-forward'));
    expect(forwarder).toBeDefined();
    expect(readlinkSync(`/proc/${forwarder}/ns/net`)).toBe(hostNetns);
    const sockets = tcpSocketsOf(forwarder ?? 0);
    const listening = sockets.filter((s) => s.state === 'LISTEN');
    expect(listening.map((s) => s.local)).toContain(new URL(cp.server).host);
    for (const socket of sockets) expect(socket.local).toMatch(/^127\.0\.0\.1:/);
    for (const component of [
      'etcd',
      'kube-apiserver',
      'kube-controller-manager',
      'kube-scheduler',
      'kwok',
      'port-forward-netns',
      'containerd',
      'kubelet',
      'kube-proxy',
      'coredns',
    ] as const) {
      const pid = readPid(layout.pidFile(component));
      expect(pid, component).toBeDefined();
      expect(readlinkSync(`/proc/${pid}/ns/net`), component).toBe(nodeNetns);
    }
  });
});

describe('down', () => {
  it('leaves nothing behind: processes, mounts, namespace, cgroups, files outside the folder, kernel values', async () => {
    const pids = Object.values(JSON.parse(readFileSync(layout.stateFile, 'utf8')).components).map(
      (c) => (c as { pid: number }).pid,
    );
    await stopCluster(name);

    const living = (pid: number) => {
      try {
        return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
      } catch {
        return false;
      }
    };
    expect(pids.filter(living)).toEqual([]);
    // Nothing left that names the cluster's folder (containerd's shims and the containers' processes
    // included). A process killed by `down` may still be exiting for a moment on a loaded machine:
    // one that lives on for 10 s has leaked.
    const leftovers = () =>
      readdirSync('/proc')
        .filter((p) => /^\d+$/.test(p) && living(Number(p)))
        .flatMap((p) => {
          try {
            const cmdline = readFileSync(`/proc/${p}/cmdline`, 'utf8');
            return cmdline.includes(layout.root) ? [`${p}: ${cmdline.replaceAll('\0', ' ').trim()}`] : [];
          } catch {
            return [];
          }
        });
    const settled = Date.now() + 10_000;
    while (leftovers().length > 0 && Date.now() < settled) await new Promise((r) => setTimeout(r, 250));
    expect(leftovers()).toEqual([]);
    const mounts = mountPoints(readFileSync('/proc/self/mountinfo', 'utf8')).map((m) => m.path);
    expect(mounts.filter((m) => m.startsWith(`${layout.root}/`) || m === netnsPath(name))).toEqual([]);
    expect(existsSync(netnsPath(name))).toBe(false);
    for (const hierarchy of ['cpu', 'memory', 'pids', 'freezer', 'systemd', 'unified']) {
      expect(existsSync(`/sys/fs/cgroup/${hierarchy}${cgroupRoot(name)}`), hierarchy).toBe(false);
    }
    const links = existsSync('/var/log/containers') ? readdirSync('/var/log/containers') : [];
    expect(links.filter((l) => readlinkSync(`/var/log/containers/${l}`).startsWith(layout.root))).toEqual([]);
    const results = existsSync('/var/lib/cni/results') ? readdirSync('/var/lib/cni/results') : [];
    expect(results.filter((r) => r.startsWith(`kube-env-${name}-`))).toEqual([]);
    // The node's own /run/containerd (its shims' sockets), /var/lib/kubelet, /etc/cni/net.d…
    expect(existsSync(`${nodeLayout(layout.root).hostRoot}`)).toBe(false);
    expect(existsSync(`${nodeLayout(layout.root).dir}/containerd/state`)).toBe(false);

    if (otherRealNodes().length === 0) {
      // The last real node on the machine puts everything back as it found it.
      expect(readSysctls()).toEqual(sysctlsBefore);
      for (const path of hostPaths) expect(existsSync(path), path).toBe(hostPathsBefore[path]);
      expect(existsSync(hostRecordFile)).toBe(false);
    } else {
      // Other real nodes still need kubelet's values; this cluster is no longer a user.
      const now = readSysctls();
      for (const [k, v] of Object.entries(kubeletKernelValues)) expect(now[k], k).toBe(v);
      for (const [k, v] of Object.entries(nodeKernelMinimums)) expect(now[k], k).toBeGreaterThanOrEqual(v);
      expect(JSON.parse(readFileSync(hostRecordFile, 'utf8')).users[name]).toBeUndefined();
    }
  }, 120_000);
});
