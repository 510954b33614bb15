import { describe, expect, it } from 'vitest';
import { pkiPaths } from '../pki/cluster-pki.js';
import { auditPolicy, componentCommands, kwokConfiguration } from './commands.js';
import { controlPlaneComponents } from './layout.js';

const inputs = {
  binDir: '/cache/bin',
  stageFiles: ['/cache/stages/pod-ready.yaml', '/cache/stages/pod-delete.yaml'],
  ports: { etcdClient: 1001, etcdPeer: 1002, apiserver: 1003, controllerManager: 1004, scheduler: 1005 },
  pki: pkiPaths('/state/pki'),
  kubeconfig: '/state/kubeconfig',
  etcdData: '/state/etcd',
  kwokConfig: '/state/kwok.yaml',
};
const commands = componentCommands(inputs);
const flag = (args: string[], name: string) =>
  args.filter((a) => a.startsWith(`--${name}=`)).map((a) => a.slice(name.length + 3));

describe('componentCommands', () => {
  it('runs every component from the cache bin directory', () => {
    for (const name of controlPlaneComponents) expect(commands[name][0]).toBe(`/cache/bin/${name}`);
  });

  it('binds and advertises 127.0.0.1 only', () => {
    const addressFlags =
      /^--(listen-[a-z-]+|advertise-[a-z-]+|initial-advertise-peer-urls|bind-address|etcd-servers|node-ip)=/;
    const checked = Object.values(commands)
      .flat()
      .filter((a) => addressFlags.test(a));
    expect(checked.length).toBe(10);
    for (const a of checked) expect(a).toMatch(/=(http:\/\/)?127\.0\.0\.1(:\d+)?$/);
    expect(flag(commands.etcd, 'listen-client-urls')).toEqual(['http://127.0.0.1:1001']);
    expect(flag(commands.etcd, 'listen-peer-urls')).toEqual(['http://127.0.0.1:1002']);
    expect(flag(commands['kube-apiserver'], 'bind-address')).toEqual(['127.0.0.1']);
    expect(flag(commands['kube-controller-manager'], 'bind-address')).toEqual(['127.0.0.1']);
    expect(flag(commands['kube-scheduler'], 'bind-address')).toEqual(['127.0.0.1']);
    expect(commands.kwok.some((a) => a.startsWith('--server-address') || a.startsWith('--node-port'))).toBe(
      false,
    );
  });

  it('keeps the API server from dialling webhooks or kubelets by name', () => {
    const api = commands['kube-apiserver'];
    expect(flag(api, 'disable-admission-plugins')[0]?.split(',')).toEqual(
      expect.arrayContaining(['MutatingAdmissionWebhook', 'ValidatingAdmissionWebhook']),
    );
    expect(flag(api, 'kubelet-preferred-address-types')).toEqual(['InternalIP']);
    expect(flag(api, 'etcd-servers')).toEqual(['http://127.0.0.1:1001']);
  });

  it('gives kwok its configuration and the stages, and lets it keep node leases', () => {
    expect(flag(commands.kwok, 'config')).toEqual([
      '/state/kwok.yaml,/cache/stages/pod-ready.yaml,/cache/stages/pod-delete.yaml',
    ]);
    expect(flag(commands.kwok, 'node-lease-duration-seconds')).toEqual(['40']);
    expect(flag(commands.kwok, 'node-ip')).toEqual(['127.0.0.1']);
  });

  it('marks a silent node NotReady after 300 s unless asked for less, then looking every second', () => {
    expect(flag(commands['kube-controller-manager'], 'node-monitor-grace-period')).toEqual(['300s']);
    const quick = componentCommands({ ...inputs, nodeMonitorGracePeriodSeconds: 20 });
    expect(flag(quick['kube-controller-manager'], 'node-monitor-grace-period')).toEqual(['20s']);
    expect(flag(commands['kube-controller-manager'], 'node-monitor-period')).toEqual(['5s']);
    expect(flag(quick['kube-controller-manager'], 'node-monitor-period')).toEqual(['1s']);
  });

  it('runs the controllers without leader election, against the admin kubeconfig', () => {
    for (const name of ['kube-controller-manager', 'kube-scheduler'] as const) {
      expect(commands[name]).toContain('--leader-elect=false');
      expect(flag(commands[name], 'kubeconfig')).toEqual(['/state/kubeconfig']);
    }
  });
});

describe('componentCommands with a real node', () => {
  const inNamespace = componentCommands({
    binDir: '/cache/bin',
    stageFiles: [],
    ports: { etcdClient: 1001, etcdPeer: 1002, apiserver: 1003, controllerManager: 1004, scheduler: 1005 },
    pki: pkiPaths('/state/pki'),
    kubeconfig: '/state/kubeconfig',
    etcdData: '/state/etcd',
    kwokConfig: '/state/kwok.yaml',
    realNode: {
      nodeIp: '10.250.0.2',
      kubeletClientCert: '/state/node/pki/apiserver-kubelet-client.crt',
      kubeletClientKey: '/state/node/pki/apiserver-kubelet-client.key',
    },
  });
  const api = inNamespace['kube-apiserver'];

  it("advertises the node IP, so the kubernetes Service's endpoint is reachable from pods", () => {
    expect(flag(api, 'advertise-address')).toEqual(['10.250.0.2']);
    expect(flag(api, 'endpoint-reconciler-type')).toEqual(['lease']);
    // Inside the namespace: its loopback (the host's port forwarder) and the node IP (pods).
    expect(flag(api, 'bind-address')).toEqual(['0.0.0.0']);
  });

  it('authenticates to kubelets with a client certificate and verifies theirs', () => {
    expect(flag(api, 'kubelet-client-certificate')).toEqual(['/state/node/pki/apiserver-kubelet-client.crt']);
    expect(flag(api, 'kubelet-client-key')).toEqual(['/state/node/pki/apiserver-kubelet-client.key']);
    expect(flag(api, 'kubelet-certificate-authority')).toEqual(['/state/pki/ca.crt']);
    expect(flag(api, 'enable-admission-plugins')).toEqual([
      'NodeRestriction,PodNodeSelector,PodTolerationRestriction',
    ]);
    expect(flag(api, 'authorization-mode')).toEqual(['Node,RBAC']);
  });

  it('keeps every other component on the loopback', () => {
    for (const name of ['etcd', 'kube-controller-manager', 'kube-scheduler'] as const) {
      expect(inNamespace[name]).toEqual(commands[name]);
    }
  });
});

describe('componentCommands with an audit log', () => {
  const audited = componentCommands({
    ...inputs,
    audit: { policyFile: '/state/audit-policy.yaml', logFile: '/tmp/bench/audit.log' },
  });
  const api = audited['kube-apiserver'];

  it('passes the policy and a JSON log that is never rotated', () => {
    expect(flag(api, 'audit-policy-file')).toEqual(['/state/audit-policy.yaml']);
    expect(flag(api, 'audit-log-path')).toEqual(['/tmp/bench/audit.log']);
    expect(flag(api, 'audit-log-format')).toEqual(['json']);
    // 0 would mean the log library's default, a rotation at 100 MB: the size is 1 TiB instead.
    expect(flag(api, 'audit-log-maxsize')).toEqual([String(1024 * 1024)]);
  });

  it('adds no audit flag without one', () => {
    expect(commands['kube-apiserver'].some((a) => a.startsWith('--audit-'))).toBe(false);
  });

  it('records metadata of every request once, without bodies', () => {
    const policy = auditPolicy();
    expect(policy).toContain('kind: Policy');
    expect(policy).toContain('omitStages: [RequestReceived]');
    expect(policy).toMatch(/- level: Metadata\n$/);
  });
});

describe('componentCommands and admission webhooks', () => {
  const disabled = (args: string[]) => flag(args, 'disable-admission-plugins');

  it('keeps the API server from calling webhooks by default', () => {
    expect(disabled(commands['kube-apiserver'])).toEqual([
      'MutatingAdmissionWebhook,ValidatingAdmissionWebhook',
    ]);
  });

  it('lets it call them when asked', () => {
    const api = componentCommands({ ...inputs, admissionWebhooks: true })['kube-apiserver'];
    expect(disabled(api)).toEqual([]);
  });
});

describe('componentCommands and throughput (ADR 0029)', () => {
  it('gives the controllers that many instances keep busy 20 workers each', () => {
    const kcm = commands['kube-controller-manager'];
    for (const name of ['concurrent-job-syncs', 'concurrent-deployment-syncs', 'concurrent-replicaset-syncs'])
      expect(flag(kcm, name)).toEqual(['20']);
    expect(flag(kcm, 'kube-api-qps')).toEqual(['500']);
  });

  it('lifts the scheduler out of its default 50 requests per second', () => {
    expect(flag(commands['kube-scheduler'], 'kube-api-qps')).toEqual(['500']);
    expect(flag(commands['kube-scheduler'], 'kube-api-burst')).toEqual(['1000']);
  });

  it('has kwok play 16 pod stages at once', () => {
    expect(kwokConfiguration()).toMatch(/^ {2}podPlayStageParallelism: 16$/m);
  });
});
