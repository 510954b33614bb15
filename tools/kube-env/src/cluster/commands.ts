import { join } from 'node:path';
import type { ClusterPki } from '../pki/cluster-pki.js';
import type { ControlPlaneComponent } from './layout.js';

export interface Ports {
  etcdClient: number;
  etcdPeer: number;
  apiserver: number;
  controllerManager: number;
  scheduler: number;
}

export interface CommandInputs {
  binDir: string;
  stageFiles: readonly string[];
  ports: Ports;
  pki: ClusterPki;
  kubeconfig: string;
  etcdData: string;
  kwokConfig: string;
  /** Set when the control plane runs inside a real node's network namespace (see src/node/). */
  realNode?: RealNodeApiserverInputs;
  /** The API server writes an audit log (one JSON event per line) by this policy. */
  audit?: { policyFile: string; logFile: string };
  /** The API server calls admission webhooks (off by default, see the flag below). */
  admissionWebhooks?: boolean;
  /** How long a node may go without a heartbeat before it is NotReady (default 300 s). */
  nodeMonitorGracePeriodSeconds?: number;
}

interface RealNodeApiserverInputs {
  /** The node's IP: the API server's advertised address, so the `kubernetes` Service points at it. */
  nodeIp: string;
  /** The API server's client certificate towards the kubelet (logs, exec, port-forward). */
  kubeletClientCert: string;
  kubeletClientKey: string;
}

/** The annotation kwok selects its nodes by (so kwok never touches a node it did not get from us). */
export const fakeNodeAnnotation = { key: 'kwok.x-k8s.io/node', value: 'fake' } as const;
const serviceClusterIpRange = '10.96.0.0/16';
const podCidr = '10.244.0.0/16';

const loopback = '127.0.0.1';

/** Worker counts of the controller-manager's controllers that the tests and the bench keep busy. */
const controllerWorkers = [
  '--concurrent-job-syncs=20',
  '--concurrent-deployment-syncs=20',
  '--concurrent-replicaset-syncs=20',
] as const;
/** kwok's pod stages played in parallel. */
const kwokPodStageParallelism = 16;
/** 1 TiB: never reached, so the audit log is never rotated. */
const auditLogMaxSizeMb = 1024 * 1024;

/**
 * The command line of every component. Everything binds 127.0.0.1; the API server dials nothing but
 * etcd and (never, since webhooks are off and nodes are 127.0.0.1) a kubelet.
 */
export function componentCommands(inputs: CommandInputs): Record<ControlPlaneComponent, string[]> {
  const { ports, pki, kubeconfig } = inputs;
  const bin = (name: string) => join(inputs.binDir, name);
  const etcdClient = `http://${loopback}:${ports.etcdClient}`;
  const etcdPeer = `http://${loopback}:${ports.etcdPeer}`;
  const kubeClient = [
    `--kubeconfig=${kubeconfig}`,
    `--authentication-kubeconfig=${kubeconfig}`,
    `--authorization-kubeconfig=${kubeconfig}`,
    `--bind-address=${loopback}`,
    '--leader-elect=false',
  ];
  return {
    etcd: [
      bin('etcd'),
      '--name=kube-env',
      `--data-dir=${inputs.etcdData}`,
      `--listen-client-urls=${etcdClient}`,
      `--advertise-client-urls=${etcdClient}`,
      `--listen-peer-urls=${etcdPeer}`,
      `--initial-advertise-peer-urls=${etcdPeer}`,
      `--initial-cluster=kube-env=${etcdPeer}`,
      // Test data: speed over durability (what envtest does too).
      '--unsafe-no-fsync=true',
      '--quota-backend-bytes=8589934592',
      '--auto-compaction-mode=periodic',
      '--auto-compaction-retention=5m',
      '--log-level=warn',
    ],
    'kube-apiserver': [
      bin('kube-apiserver'),
      `--etcd-servers=${etcdClient}`,
      `--secure-port=${ports.apiserver}`,
      ...(inputs.realNode ? realNodeApiserverFlags(inputs.realNode, pki.caCert) : loopbackApiserverFlags),
      `--tls-cert-file=${pki.apiserverCert}`,
      `--tls-private-key-file=${pki.apiserverKey}`,
      `--client-ca-file=${pki.caCert}`,
      '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
      `--service-account-key-file=${pki.serviceAccountPub}`,
      `--service-account-signing-key-file=${pki.serviceAccountKey}`,
      `--service-cluster-ip-range=${serviceClusterIpRange}`,
      '--authorization-mode=Node,RBAC',
      '--allow-privileged=true',
      // Logs/exec/port-forward go to the node's InternalIP (127.0.0.1), never to a DNS name.
      '--kubelet-preferred-address-types=InternalIP',
      // No webhooks unless asked: the API server would otherwise dial the Service or pod
      // addresses of webhooks that run on kwok's nodes (fakes) and fail or stall admissions.
      ...(inputs.admissionWebhooks
        ? []
        : ['--disable-admission-plugins=MutatingAdmissionWebhook,ValidatingAdmissionWebhook']),
      '--enable-priority-and-fairness=false',
      '--max-requests-inflight=0',
      '--max-mutating-requests-inflight=0',
      '--profiling=false',
      ...(inputs.audit ? auditFlags(inputs.audit) : []),
    ],
    'kube-controller-manager': [
      bin('kube-controller-manager'),
      ...kubeClient,
      `--secure-port=${ports.controllerManager}`,
      `--root-ca-file=${pki.caCert}`,
      `--service-account-private-key-file=${pki.serviceAccountKey}`,
      `--cluster-signing-cert-file=${pki.caCert}`,
      `--cluster-signing-key-file=${pki.caKey}`,
      '--kube-api-qps=500',
      '--kube-api-burst=1000',
      // Workers per controller (default 5 each): each sync waits on API round-trips, so with 200
      // Jobs at once 5 workers kept Jobs 4–16 s in the queue before their pod was created, and as
      // long again after it succeeded (ADR 0029). More workers cost no CPU when idle.
      ...controllerWorkers,
      // Generous by default: on a busy 2-core machine a late lease renewal must not evict every
      // pod. A test of a lost node asks for less, and then the nodes are also looked at every
      // second, so that a lost node is NotReady within its grace period plus one second.
      `--node-monitor-period=${inputs.nodeMonitorGracePeriodSeconds ? 1 : 5}s`,
      `--node-monitor-grace-period=${inputs.nodeMonitorGracePeriodSeconds ?? 300}s`,
      '--profiling=false',
    ],
    'kube-scheduler': [
      bin('kube-scheduler'),
      ...kubeClient,
      `--secure-port=${ports.scheduler}`,
      // One binding per pod: the default 50 requests/s would hold 200 instances' 800 pods to 16 s
      // of bindings alone.
      '--kube-api-qps=500',
      '--kube-api-burst=1000',
      '--profiling=false',
    ],
    kwok: [
      bin('kwok'),
      `--kubeconfig=${kubeconfig}`,
      `--config=${[inputs.kwokConfig, ...inputs.stageFiles].join(',')}`,
      '--manage-all-nodes=false',
      `--manage-nodes-with-annotation-selector=${fakeNodeAnnotation.key}=${fakeNodeAnnotation.value}`,
      `--node-ip=${loopback}`,
      `--cidr=${podCidr}`,
      // Non-zero: kwok then keeps node Leases fresh, and the heartbeat-with-lease stage applies.
      '--node-lease-duration-seconds=40',
    ],
  };
}

const loopbackApiserverFlags = [
  `--bind-address=${loopback}`,
  // A loopback advertise address is refused by the endpoint reconcilers, hence `none`.
  `--advertise-address=${loopback}`,
  '--endpoint-reconciler-type=none',
];

/**
 * Inside the real node's namespace the API server listens on the namespace's addresses (its
 * loopback, reached from the host through the port forwarder, and the node IP, reached by pods
 * through the `kubernetes` Service), talks to the kubelet with its own client certificate and
 * checks the kubelet's serving certificate; nodes may only change their own objects.
 */
function realNodeApiserverFlags(node: RealNodeApiserverInputs, caCert: string): string[] {
  return [
    '--bind-address=0.0.0.0',
    `--advertise-address=${node.nodeIp}`,
    '--endpoint-reconciler-type=lease',
    `--kubelet-client-certificate=${node.kubeletClientCert}`,
    `--kubelet-client-key=${node.kubeletClientKey}`,
    `--kubelet-certificate-authority=${caCert}`,
    // PodNodeSelector and PodTolerationRestriction let a namespace send its pods to the real node
    // (annotations), so a test or the demo can run one product's workloads there and the rest on kwok.
    '--enable-admission-plugins=NodeRestriction,PodNodeSelector,PodTolerationRestriction',
  ];
}

function auditFlags(audit: { policyFile: string; logFile: string }): string[] {
  return [
    `--audit-policy-file=${audit.policyFile}`,
    `--audit-log-path=${audit.logFile}`,
    '--audit-log-format=json',
    // One file however long the run: whoever reads it counts from an offset, never across a rotation.
    // The size is in MB; 0 is not "unlimited" but the log library's default of 100 MB.
    `--audit-log-maxsize=${auditLogMaxSizeMb}`,
    '--audit-log-maxbackup=0',
  ];
}

/**
 * Metadata for every request (verb, resource, namespace, name, user, user agent, status), no
 * bodies. RequestReceived is left out so a request is one event, or two for a watch (started, then
 * completed when it ends): count distinct auditIDs.
 */
export function auditPolicy(): string {
  return [
    'apiVersion: audit.k8s.io/v1',
    'kind: Policy',
    'omitStages: [RequestReceived]',
    'rules:',
    '  - level: Metadata',
    '',
  ].join('\n');
}

/** kwok's own configuration document (the stage documents are passed as further --config files). */
export function kwokConfiguration(): string {
  return [
    'apiVersion: config.kwok.x-k8s.io/v1alpha1',
    'kind: KwokConfiguration',
    'options:',
    '  manageAllNodes: false',
    `  manageNodesWithAnnotationSelector: ${fakeNodeAnnotation.key}=${fakeNodeAnnotation.value}`,
    `  nodeIP: ${loopback}`,
    `  cidr: ${podCidr}`,
    '  nodeLeaseDurationSeconds: 40',
    // Pod stages played at once (kwok's default 4): each is a status patch, i.e. an API round-trip;
    // with 4, faster Jobs queued 3–4 s per pod in kwok instead (ADR 0029).
    `  podPlayStageParallelism: ${kwokPodStageParallelism}`,
    '',
  ].join('\n');
}
