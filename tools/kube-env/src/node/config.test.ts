import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  cniConfig,
  containerdConfig,
  corefile,
  kubeDnsEndpointSlice,
  kubeDnsService,
  kubeletArgs,
  kubeletConfig,
  kubeProxyConfig,
  nodeRbac,
} from './config.js';
import { nodeLayout } from './layout.js';
import { realNodeNetwork, realNodeSpec } from './network.js';

const layout = nodeLayout('/state/clusters/c1');
const ports = { apiserver: 1, kubeProxyHealth: 2, kubeProxyMetrics: 3, corednsHealth: 4, corednsReady: 5 };
const kubelet = parse(
  kubeletConfig(layout, 'c1', { caCert: '/state/ca.crt', servingCert: '/s.crt', servingKey: '/s.key' }),
);

describe('containerd configuration', () => {
  const toml = containerdConfig(layout);

  it("keeps root, state, socket and runc's state under the node's folder, CNI at the standard paths", () => {
    expect(toml).toContain('root = "/state/clusters/c1/node/containerd/root"');
    expect(toml).toContain('state = "/state/clusters/c1/node/containerd/state"');
    expect(toml).toContain('address = "/state/clusters/c1/node/containerd.sock"');
    expect(toml).toContain('Root = "/state/clusters/c1/node/containerd/runc"');
    expect(toml).toContain('path = "/state/clusters/c1/node/containerd/opt"');
    // The node's mount namespace binds its own folders over these (and over /run/netns).
    expect(toml).toContain('conf_dir = "/etc/cni/net.d"');
    expect(toml).toContain('bin_dir = "/opt/cni/bin"');
    expect(toml).not.toContain('netns_mounts_under_state_dir');
  });

  it('gives node k its own folder, and its copies of the host paths under it', () => {
    const second = nodeLayout('/state/clusters/c1', 2);
    expect(second.dir).toBe('/state/clusters/c1/node-2');
    expect(second.cniConfDir).toBe('/state/clusters/c1/node-2/host/etc/cni/net.d');
    expect(second.kubeletRoot).toBe('/state/clusters/c1/node-2/host/var/lib/kubelet');
    expect(second.mountNamespace).toBe('/state/clusters/c1/ns/node-2.mnt');
    expect(containerdConfig(second)).toContain('address = "/state/clusters/c1/node-2/containerd.sock"');
  });

  it('uses the locally built pause image, cgroupfs, and clamps oom_score_adj (negative values are refused here)', () => {
    expect(toml).toContain('sandbox_image = "registry.k8s.io/pause:3.10.1"');
    expect(toml).toContain('SystemdCgroup = false');
    expect(toml).toContain('restrict_oom_score_adj = true');
    expect(toml).toContain('stream_server_address = "127.0.0.1"');
  });
});

describe('CNI configuration', () => {
  const bridge = JSON.parse(cniConfig('c1')).plugins[0];

  it('gives pods routes to the cluster ranges only (Services, nodes, all pods), never a default route', () => {
    expect(bridge.isDefaultGateway).toBe(false);
    expect(bridge.ipMasq).toBe(false);
    expect(bridge.ipam.routes).toEqual([
      { dst: realNodeNetwork.serviceSubnet },
      { dst: realNodeNetwork.nodeSubnet },
      { dst: realNodeNetwork.podsSubnet },
    ]);
    expect(bridge.ipam.routes.some((r: { dst: string }) => r.dst === '0.0.0.0/0')).toBe(false);
    // host-local's default store, /var/lib/cni/networks: the node's own folder inside its mount namespace.
    expect(bridge.ipam.dataDir).toBeUndefined();
  });

  it('gives node k the pod subnet 10.245.(k-1).0/24', () => {
    const second = JSON.parse(cniConfig('c1', realNodeSpec('c1', 2))).plugins[0];
    expect(second.ipam.ranges).toEqual([[{ subnet: '10.245.1.0/24', gateway: '10.245.1.1' }]]);
    expect(bridge.ipam.ranges).toEqual([[{ subnet: '10.245.0.0/24', gateway: '10.245.0.1' }]]);
  });
});

describe('kubelet configuration', () => {
  it('never allows anonymous access: x509 or webhook authentication, webhook authorization', () => {
    expect(kubelet.authentication.anonymous.enabled).toBe(false);
    expect(kubelet.authentication.webhook.enabled).toBe(true);
    expect(kubelet.authentication.x509.clientCAFile).toBe('/state/ca.crt');
    expect(kubelet.authorization.mode).toBe('Webhook');
    expect(kubelet.readOnlyPort).toBe(0);
  });

  it('serves on the node IP with its CA-signed certificate; health only on loopback', () => {
    expect(kubelet.address).toBe(realNodeNetwork.nodeIp);
    expect(kubelet.tlsCertFile).toBe('/s.crt');
    expect(kubelet.healthzBindAddress).toBe('127.0.0.1');
  });

  it('checks, never writes, the kernel values; its cgroups live under the cluster cgroup', () => {
    expect(kubelet.protectKernelDefaults).toBe(true);
    expect(kubelet.cgroupRoot).toBe('/kube-env-c1');
    expect(kubelet.cgroupDriver).toBe('cgroupfs');
    const second = parse(
      kubeletConfig(
        layout,
        'c1',
        { caCert: '/ca', servingCert: '/s', servingKey: '/k' },
        realNodeSpec('c1', 2),
      ),
    );
    expect(second.cgroupRoot).toBe('/kube-env-c1/real-node-2');
    expect(second.address).toBe('10.250.0.3');
  });

  it('points pods at the cluster DNS Service', () => {
    expect(kubelet.clusterDNS).toEqual([realNodeNetwork.dnsServiceIp]);
    expect(kubelet.clusterDomain).toBe('cluster.local');
  });

  it("keeps its directories under the cluster's folder, its root the standard one (the node's own)", () => {
    for (const path of [kubelet.podLogsDir, kubelet.resolvConf, kubelet.volumePluginDir]) {
      expect(path.startsWith('/state/clusters/c1/node/')).toBe(true);
    }
    const args = kubeletArgs(layout);
    expect(args).toContain('--root-dir=/var/lib/kubelet');
    expect(kubeletArgs(layout, realNodeSpec('c1', 2))).toContain('--hostname-override=real-node-2');
    expect(args).toContain('--cert-dir=/state/clusters/c1/node/pki');
    expect(args).toContain('--node-labels=type=real');
  });
});

describe('kube-proxy and CoreDNS', () => {
  it('runs kube-proxy in iptables mode, health and metrics on loopback, conntrack left alone', () => {
    const proxy = parse(kubeProxyConfig(layout, ports));
    expect(proxy.mode).toBe('iptables');
    expect(proxy.healthzBindAddress).toBe('127.0.0.1:2');
    expect(proxy.metricsBindAddress).toBe('127.0.0.1:3');
    expect(proxy.conntrack.maxPerCore).toBe(0);
  });

  it('serves the cluster domain from the API server on the node IP, with no upstream resolver', () => {
    const file = corefile(layout, ports);
    expect(file).toContain(`bind ${realNodeNetwork.nodeIp}`);
    expect(file).toContain('kubernetes cluster.local in-addr.arpa ip6.arpa');
    expect(file).toContain('ready 127.0.0.1:5');
    expect(file).not.toContain('forward');
  });

  it('publishes CoreDNS as kube-dns at the usual cluster IP, its endpoint the node IP', () => {
    expect(kubeDnsService()).toMatchObject({
      metadata: { name: 'kube-dns', namespace: 'kube-system' },
      spec: { clusterIP: '10.96.0.10' },
    });
    expect(kubeDnsEndpointSlice()).toMatchObject({
      metadata: { labels: { 'kubernetes.io/service-name': 'kube-dns' } },
      endpoints: [{ addresses: [realNodeNetwork.nodeIp] }],
    });
  });

  it("binds the API server's kubelet client to system:kubelet-api-admin and CoreDNS to read-only access", () => {
    const [kubeletClient, corednsRole] = nodeRbac();
    expect(kubeletClient).toMatchObject({
      roleRef: { name: 'system:kubelet-api-admin' },
      subjects: [{ kind: 'User', name: 'kube-apiserver-kubelet-client' }],
    });
    const verbs = ((corednsRole?.rules ?? []) as Array<{ verbs: string[] }>).flatMap((r) => r.verbs);
    expect(new Set(verbs)).toEqual(new Set(['list', 'watch']));
  });
});
