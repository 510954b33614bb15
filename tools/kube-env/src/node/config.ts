import { stringify } from 'yaml';
import type { NodeLayout } from './layout.js';
import {
  cniNetworkName,
  realNodeNetwork as net,
  type RealNodeSpec,
  realNodeLabels,
  realNodeName,
  realNodeSpec,
} from './network.js';

/**
 * The real node's configuration files, as pure functions of the cluster's layout and ports (unit
 * tested). Every path is under the cluster's folder; nothing listens outside the namespace.
 */

export interface NodePorts {
  /** The API server's port (the same number inside the namespace and on the host's 127.0.0.1). */
  apiserver: number;
  kubeProxyHealth: number;
  kubeProxyMetrics: number;
  corednsHealth: number;
  corednsReady: number;
}

/** The image containerd uses for pod sandboxes; built here from kubernetes' pause.c (see pause-image.ts). */
export const pauseImage = 'registry.k8s.io/pause:3.10.1';

const toml = (value: string) => JSON.stringify(value);

const firstNode = { name: realNodeName, ip: net.nodeIp } as const;

/**
 * containerd (config version 2). Root, state, socket and runc's state are under the node's folder;
 * CNI and the pods' network namespaces use the standard paths, which the node's mount namespace
 * binds to its own folders (layout.ts). Negative oom_score_adj values are clamped, since this
 * machine refuses them.
 */
export function containerdConfig(layout: NodeLayout): string {
  const cri = '[plugins."io.containerd.grpc.v1.cri"';
  return `${[
    'version = 2',
    `root = ${toml(layout.containerdRoot)}`,
    `state = ${toml(layout.containerdState)}`,
    'oom_score = 0',
    // Storage back ends and exporters this node does not use (and that would probe the machine).
    'disabled_plugins = ["io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.devmapper", "io.containerd.snapshotter.v1.zfs", "io.containerd.tracing.processor.v1.otlp", "io.containerd.internal.v1.tracing"]',
    '',
    '[grpc]',
    `  address = ${toml(layout.containerdSocket)}`,
    '',
    '[debug]',
    '  level = "warn"',
    '',
    '[plugins."io.containerd.internal.v1.opt"]',
    `  path = ${toml(layout.containerdOpt)}`,
    '',
    `${cri}]`,
    `  sandbox_image = ${toml(pauseImage)}`,
    '  stream_server_address = "127.0.0.1"',
    '  stream_server_port = "0"',
    '  restrict_oom_score_adj = true',
    '  enable_selinux = false',
    '  max_container_log_line_size = 16384',
    '',
    `${cri}.containerd]`,
    '  snapshotter = "overlayfs"',
    '  default_runtime_name = "runc"',
    '',
    `${cri}.containerd.runtimes.runc]`,
    '  runtime_type = "io.containerd.runc.v2"',
    '',
    `${cri}.containerd.runtimes.runc.options]`,
    '  BinaryName = "/usr/sbin/runc"',
    `  Root = ${toml(layout.runcRoot)}`,
    '  SystemdCgroup = false',
    '',
    `${cri}.cni]`,
    '  bin_dir = "/opt/cni/bin"',
    '  conf_dir = "/etc/cni/net.d"',
    '  max_conf_num = 1',
    '',
    // No mirrors: an image that was not loaded cannot be pulled (there is no route out anyway).
    `${cri}.registry]`,
    `  config_path = ${toml(layout.registryConfig)}`,
  ].join('\n')}\n`;
}

/**
 * The pods' network: a bridge with host-local addresses from the node's pod subnet, and routes to
 * the cluster's ranges only (Services, nodes, every node's pods). No default route inside a pod
 * either: a connection to anything else fails at once.
 */
export function cniConfig(cluster: string, node: RealNodeSpec = realNodeSpec(cluster, 1)): string {
  return `${JSON.stringify(
    {
      cniVersion: '0.4.0',
      name: cniNetworkName(cluster),
      plugins: [
        {
          type: 'bridge',
          bridge: net.bridge,
          isGateway: true,
          isDefaultGateway: false,
          ipMasq: false,
          hairpinMode: true,
          ipam: {
            type: 'host-local',
            ranges: [[{ subnet: node.podSubnet, gateway: node.podGateway }]],
            routes: [{ dst: net.serviceSubnet }, { dst: net.nodeSubnet }, { dst: net.podsSubnet }],
          },
        },
      ],
    },
    null,
    2,
  )}\n`;
}

export interface KubeletFiles {
  caCert: string;
  servingCert: string;
  servingKey: string;
}

/**
 * KubeletConfiguration. Authentication is x509 (the cluster CA) or a webhook TokenReview, never
 * anonymous; authorization is a webhook SubjectAccessReview. protectKernelDefaults: kube-env sets the
 * kernel values kubelet wants before it starts and restores them on down, so kubelet never writes them.
 */
export function kubeletConfig(
  layout: NodeLayout,
  cluster: string,
  files: KubeletFiles,
  node: RealNodeSpec = realNodeSpec(cluster, 1),
): string {
  return stringify({
    apiVersion: 'kubelet.config.k8s.io/v1beta1',
    kind: 'KubeletConfiguration',
    address: node.ip,
    port: net.kubeletPort,
    readOnlyPort: 0,
    healthzBindAddress: '127.0.0.1',
    healthzPort: 10248,
    tlsCertFile: files.servingCert,
    tlsPrivateKeyFile: files.servingKey,
    rotateCertificates: false,
    serverTLSBootstrap: false,
    authentication: {
      anonymous: { enabled: false },
      webhook: { enabled: true, cacheTTL: '30s' },
      x509: { clientCAFile: files.caCert },
    },
    authorization: { mode: 'Webhook', webhook: { cacheAuthorizedTTL: '30s', cacheUnauthorizedTTL: '5s' } },
    containerRuntimeEndpoint: `unix://${layout.containerdSocket}`,
    imageServiceEndpoint: `unix://${layout.containerdSocket}`,
    cgroupDriver: 'cgroupfs',
    cgroupRoot: node.cgroupRoot,
    cgroupsPerQOS: true,
    enforceNodeAllocatable: ['pods'],
    // This machine has cgroup v1 hierarchies; v1 support is in maintenance mode, so say so explicitly.
    failCgroupV1: false,
    failSwapOn: false,
    protectKernelDefaults: true,
    oomScoreAdj: 0,
    podLogsDir: layout.podLogs,
    resolvConf: layout.resolvConf,
    volumePluginDir: layout.kubeletVolumePlugins,
    clusterDNS: [net.dnsServiceIp],
    clusterDomain: net.clusterDomain,
    maxPods: 110,
    serializeImagePulls: false,
    // The disk is shared with everything else on the machine: evict only when it is really full.
    evictionHard: {
      'memory.available': '100Mi',
      'nodefs.available': '1%',
      'nodefs.inodesFree': '1%',
      'imagefs.available': '1%',
    },
    imageGCHighThresholdPercent: 99,
    imageGCLowThresholdPercent: 98,
    nodeStatusUpdateFrequency: '10s',
    // The Lease is renewed every quarter of this (5 s instead of 10 s): a node that stops is seen
    // within the cluster's grace period counted from at most 5 s before it stopped.
    nodeLeaseDurationSeconds: 20,
    syncFrequency: '10s',
    fileCheckFrequency: '10s',
    shutdownGracePeriod: '0s',
  });
}

/**
 * kubelet's command line: what the configuration file cannot say. Its root is the standard
 * /var/lib/kubelet, the node's own folder inside its mount namespace.
 */
export function kubeletArgs(
  layout: NodeLayout,
  node: Pick<RealNodeSpec, 'name' | 'ip'> = firstNode,
): string[] {
  return [
    `--config=${layout.kubeletConfig}`,
    `--kubeconfig=${layout.kubeletKubeconfig}`,
    '--root-dir=/var/lib/kubelet',
    `--cert-dir=${layout.pki}`,
    `--hostname-override=${node.name}`,
    `--node-ip=${node.ip}`,
    `--node-labels=${Object.entries(realNodeLabels)
      .map(([k, v]) => `${k}=${v}`)
      .join(',')}`,
    '--v=1',
  ];
}

/** kube-proxy in iptables mode; conntrack limits are left alone (they are not this namespace's to set). */
export function kubeProxyConfig(
  layout: NodeLayout,
  ports: NodePorts,
  node: Pick<RealNodeSpec, 'name' | 'ip'> = firstNode,
): string {
  return stringify({
    apiVersion: 'kubeproxy.config.k8s.io/v1alpha1',
    kind: 'KubeProxyConfiguration',
    mode: 'iptables',
    clientConnection: { kubeconfig: layout.kubeProxyKubeconfig },
    hostnameOverride: node.name,
    clusterCIDR: net.podsSubnet,
    healthzBindAddress: `127.0.0.1:${ports.kubeProxyHealth}`,
    metricsBindAddress: `127.0.0.1:${ports.kubeProxyMetrics}`,
    conntrack: {
      maxPerCore: 0,
      min: 0,
      tcpEstablishedTimeout: '0s',
      tcpCloseWaitTimeout: '0s',
    },
    iptables: { masqueradeAll: false, syncPeriod: '30s', minSyncPeriod: '0s' },
    nodePortAddresses: [`${node.ip}/32`],
  });
}

/**
 * CoreDNS answers for the cluster domain from the API server, on the node IP only. There is no
 * upstream resolver (there is no route out): other names get no answer from here.
 */
export function corefile(layout: NodeLayout, ports: NodePorts): string {
  return `${[
    '.:53 {',
    `    bind ${net.nodeIp}`,
    '    errors',
    `    health 127.0.0.1:${ports.corednsHealth}`,
    `    ready 127.0.0.1:${ports.corednsReady}`,
    `    kubernetes ${net.clusterDomain} in-addr.arpa ip6.arpa {`,
    `        kubeconfig ${layout.corednsKubeconfig}`,
    '        pods insecure',
    '        fallthrough in-addr.arpa ip6.arpa',
    '        ttl 30',
    '    }',
    '    cache 30',
    '    loadbalance',
    '}',
  ].join('\n')}\n`;
}

/** The Service pods' resolv.conf points at (no selector: its one endpoint is CoreDNS on the node IP). */
export function kubeDnsService(): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name: 'kube-dns',
      namespace: 'kube-system',
      labels: { 'k8s-app': 'kube-dns', 'kubernetes.io/name': 'CoreDNS' },
    },
    spec: {
      clusterIP: net.dnsServiceIp,
      ports: [
        { name: 'dns', port: 53, protocol: 'UDP', targetPort: 53 },
        { name: 'dns-tcp', port: 53, protocol: 'TCP', targetPort: 53 },
      ],
    },
  };
}

export function kubeDnsEndpointSlice(): Record<string, unknown> {
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: {
      name: 'kube-dns-real-node',
      namespace: 'kube-system',
      labels: {
        'kubernetes.io/service-name': 'kube-dns',
        'endpointslice.kubernetes.io/managed-by': 'kube-env',
      },
    },
    addressType: 'IPv4',
    endpoints: [{ addresses: [net.nodeIp], conditions: { ready: true }, nodeName: realNodeName }],
    ports: [
      { name: 'dns', port: 53, protocol: 'UDP' },
      { name: 'dns-tcp', port: 53, protocol: 'TCP' },
    ],
  };
}

/** The kubelet of node `name`: NodeRestriction lets it change its own Node and pods only. */
export function kubeletIdentity(name: string) {
  return { commonName: `system:node:${name}`, organizations: ['system:nodes'] };
}

/** Identities of the node's components, each bound to no more than it needs. */
export const nodeIdentities = {
  kubelet: kubeletIdentity(realNodeName),
  /** Bound to the built-in system:node-proxier role by the API server's default policy. */
  kubeProxy: { commonName: 'system:kube-proxy' },
  coredns: { commonName: 'system:kube-env:coredns' },
  /** The API server's client certificate towards kubelets; bound to system:kubelet-api-admin. */
  apiserverKubeletClient: { commonName: 'kube-apiserver-kubelet-client' },
} as const;

/** RBAC objects the real node needs beyond the API server's default policy. */
export function nodeRbac(): Array<Record<string, unknown>> {
  return [
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'kube-env:kube-apiserver-kubelet-client' },
      roleRef: {
        apiGroup: 'rbac.authorization.k8s.io',
        kind: 'ClusterRole',
        name: 'system:kubelet-api-admin',
      },
      subjects: [
        {
          apiGroup: 'rbac.authorization.k8s.io',
          kind: 'User',
          name: nodeIdentities.apiserverKubeletClient.commonName,
        },
      ],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'kube-env:coredns' },
      rules: [
        {
          apiGroups: [''],
          resources: ['endpoints', 'services', 'pods', 'namespaces'],
          verbs: ['list', 'watch'],
        },
        { apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: ['list', 'watch'] },
      ],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'kube-env:coredns' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'kube-env:coredns' },
      subjects: [
        { apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: nodeIdentities.coredns.commonName },
      ],
    },
  ];
}
