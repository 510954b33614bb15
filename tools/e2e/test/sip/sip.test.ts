import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openstackNamespaceOnRealNode } from '@stackops/demo/openstack-pods';
import { operatorOnRealNodeValues } from '@stackops/demo/real-node';
import { jumpHostSsh } from '@stackops/demo/sip-real-node';
import { SIPClusterKind } from '@stackops/demo/targets';
import { Kinds, type KubeObject } from '@stackops/lib-common/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { makeTestCertificates, podsReady, until } from '../openstack/support.js';
import { adminClient, cleanUp, deleteNamespaces, helmInstall, kubectl } from '../support.js';
import { inNode, inNodeOk, loadSipImages, type NodeProcess, startInNode } from './support.js';

/**
 * SIP's services run for real on the real node: the load balancers and the jump host sip-operator
 * renders, from the stand-in images, in front of fake hosts. The hosts are test doubles inside the
 * node's network namespace: their IPs are extra addresses on the node's link, where small servers
 * (tools/e2e/test/sip/fake-host.mjs) answer as the tenant's API servers and workloads, an sshd
 * (from the jump-host image) as their ssh daemons, and sushy-tools' Redfish emulator as their BMC.
 */
const ns = 'sip-e2e';
const system = 'sip-e2e-system';
const release = 'sip-operator';
const client = adminClient();
const cluster = { kind: SIPClusterKind, namespace: ns, name: 'tenant' };
const NODE = '10.250.0.2';
const LINK = 'kenv1';
const BMC = { ip: '10.250.0.31', port: 8000, user: 'admin', password: 'bmc-e2e-password' };
const PROXY = { ip: '10.250.0.41', port: 3128 };
const ports = { controlPlane: 30001, jumpHost: 30000, workers: [30002, 30003, 30004] };
const hosts = {
  'cp-1': { ip: '10.250.0.11', role: 'control-plane' },
  'cp-2': { ip: '10.250.0.12', role: 'control-plane' },
  'cp-3': { ip: '10.250.0.13', role: 'control-plane' },
  'worker-1': { ip: '10.250.0.21', role: 'worker' },
  'worker-2': { ip: '10.250.0.22', role: 'worker' },
} as const;
type HostName = keyof typeof hosts;
const hostNames = Object.keys(hosts) as HostName[];
const addresses = [...Object.values(hosts).map((h) => h.ip), BMC.ip, PROXY.ip];
const fakeHostScript = join(import.meta.dirname, 'fake-host.mjs');
const work = mkdtempSync(join(tmpdir(), 'e2e-sip-'));
const keys = { tenant: join(work, 'tenant'), stranger: join(work, 'stranger'), node: join(work, 'node') };
const servers = new Map<string, NodeProcess>();
const unready = (name: HostName) => join(work, `${name}.unready`);
const timings: Record<string, string> = {};
let images: Awaited<ReturnType<typeof loadSipImages>>;

const secs = (t0: number) => `${((Date.now() - t0) / 1000).toFixed(1)}s`;

/** A host's servers: the API server (TLS, /readyz) on control-plane hosts, the node ports on workers. */
async function startHost(name: HostName): Promise<void> {
  const h = hosts[name];
  const args =
    h.role === 'control-plane'
      ? [join(work, 'tls.json'), unready(name), '6443']
      : ['-', unready(name), ...ports.workers.map(String)];
  servers.set(name, await startInNode([process.execPath, fakeHostScript, 'host', name, h.ip, ...args]));
}

async function stopHost(name: HostName): Promise<void> {
  await servers.get(name)?.stop();
  servers.delete(name);
}

const bmh = (name: HostName): KubeObject[] => [
  {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: `${name}-networkdata`, namespace: ns },
    stringData: {
      networkData: JSON.stringify({
        links: [{ id: 'eth0', type: 'phy' }],
        networks: [
          {
            id: 'oam-ipv4',
            type: 'ipv4',
            link: 'eth0',
            ip_address: hosts[name].ip,
            netmask: '255.255.255.0',
          },
        ],
      }),
    },
  } as KubeObject,
  {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: `${name}-bmc`, namespace: ns },
    stringData: { username: BMC.user, password: BMC.password },
  } as KubeObject,
  {
    apiVersion: 'metal3.io/v1alpha1',
    kind: 'BareMetalHost',
    metadata: { name, namespace: ns, labels: { 'e2e.stackops.dev/role': hosts[name].role } },
    spec: {
      online: true,
      bmc: {
        address: `redfish+http://${BMC.ip}:${BMC.port}/redfish/v1/Systems/${name}`,
        credentialsName: `${name}-bmc`,
      },
      networkData: { name: `${name}-networkdata`, namespace: ns },
    },
  } as KubeObject,
];

const sipCluster = (controlPlanes: number, proxy: boolean): KubeObject =>
  ({
    apiVersion: 'airship.airshipit.org/v1',
    kind: 'SIPCluster',
    metadata: { name: cluster.name, namespace: ns },
    spec: {
      nodes: {
        ControlPlane: {
          labelSelector: { matchLabels: { 'e2e.stackops.dev/role': 'control-plane' } },
          count: { active: controlPlanes, standby: 0 },
        },
        Worker: {
          labelSelector: { matchLabels: { 'e2e.stackops.dev/role': 'worker' } },
          count: { active: 2, standby: 0 },
        },
      },
      services: {
        loadBalancerControlPlane: [{ nodePort: ports.controlPlane, nodeInterfaceId: 'oam-ipv4' }],
        loadBalancerWorker: [
          {
            nodePortRange: { start: ports.workers[0], end: ports.workers.at(-1) },
            nodeInterfaceId: 'oam-ipv4',
          },
        ],
        jumpHost: [
          {
            nodePort: ports.jumpHost,
            nodeInterfaceId: 'oam-ipv4',
            nodeSSHPrivateKeys: 'node-ssh-keys',
            sshAuthorizedKeys: [readFileSync(`${keys.tenant}.pub`, 'utf8').trim()],
            bmc: { proxy },
          },
        ],
      },
    },
  }) as KubeObject;

async function apply(objects: KubeObject[]): Promise<void> {
  const file = join(work, 'objects.yaml');
  writeFileSync(file, objects.map((o) => JSON.stringify(o)).join('\n---\n'));
  await kubectl(['apply', '--server-side', '--force-conflicts', '-f', file]);
}

/** The fake hosts' sshd (one daemon on every host IP, user ubuntu with the node key) and the Redfish BMC: hostNetwork pods. */
function testDoublePods(): KubeObject[] {
  const sshd = [
    `printf 'ListenAddress %s\\n' ${Object.values(hosts)
      .map((h) => h.ip)
      .join(' ')} > /etc/ssh/sshd_config.d/listen.conf`,
    'install -m 600 -o ubuntu -g ubuntu /keys/authorized_keys /home/ubuntu/.ssh/authorized_keys',
    'exec /usr/local/bin/jump-host-start',
  ].join(' && ');
  const systems = hostNames.map((name) => ({ uuid: name, name, power_state: 'On' }));
  const sushyConf = [
    `SUSHY_EMULATOR_LISTEN_IP = '${BMC.ip}'`,
    `SUSHY_EMULATOR_LISTEN_PORT = ${BMC.port}`,
    "SUSHY_EMULATOR_AUTH_FILE = '/tmp/htpasswd'",
    'SUSHY_EMULATOR_FAKE_DRIVER = True',
    `SUSHY_EMULATOR_FAKE_SYSTEMS = ${JSON.stringify(systems)}`,
  ].join('\n');
  const htpasswd = `import bcrypt; open('/tmp/htpasswd', 'w').write('${BMC.user}:' + bcrypt.hashpw(b'${BMC.password}', bcrypt.gensalt()).decode() + '\\n')`;
  const pod = (name: string, spec: Record<string, unknown>): KubeObject =>
    ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace: ns, labels: { app: name } },
      spec: { hostNetwork: true, terminationGracePeriodSeconds: 1, ...spec },
    }) as KubeObject;
  return [
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'fake-hosts', namespace: ns },
      stringData: {
        authorized_keys: readFileSync(`${keys.node}.pub`, 'utf8'),
        'emulator.conf': sushyConf,
      },
    } as KubeObject,
    pod('fake-hosts-sshd', {
      containers: [
        {
          name: 'sshd',
          image: images.jumphost,
          imagePullPolicy: 'Never',
          command: ['/bin/sh', '-c', sshd],
          volumeMounts: [{ name: 'keys', mountPath: '/keys' }],
          readinessProbe: { tcpSocket: { host: hosts['cp-1'].ip, port: 22 }, periodSeconds: 2 },
        },
      ],
      volumes: [{ name: 'keys', secret: { secretName: 'fake-hosts' } }],
    }),
    pod('fake-bmc', {
      containers: [
        {
          name: 'sushy',
          image: images.sushy,
          imagePullPolicy: 'Never',
          command: [
            '/bin/sh',
            '-c',
            `python3 -c "${htpasswd}" && exec sushy-emulator --config /etc/sushy/emulator.conf`,
          ],
          volumeMounts: [{ name: 'conf', mountPath: '/etc/sushy' }],
          readinessProbe: { tcpSocket: { host: BMC.ip, port: BMC.port }, periodSeconds: 2 },
        },
      ],
      volumes: [{ name: 'conf', secret: { secretName: 'fake-hosts' } }],
    }),
  ];
}

const lbPods = (role: 'controlplane' | 'worker') =>
  `app.kubernetes.io/instance=loadbalancer-${role}-${cluster.name}`;
const jumpHostPods = `app.kubernetes.io/instance=jumphost-${cluster.name}`;

/** One request through the control-plane LB on a new connection: the answering host's name. */
async function viaControlPlaneLb(): Promise<string> {
  return (
    await inNodeOk(['curl', '-sk', '--max-time', '10', `https://${NODE}:${ports.controlPlane}/`])
  ).trim();
}

/** The names of the hosts that answer `n` requests through the control-plane LB, in order. */
async function controlPlaneAnswers(n: number): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push((await viaControlPlaneLb()).split(':')[0]!);
  return out;
}

/** Waits until `n` requests in a row through the control-plane LB are answered by exactly the hosts `want`. */
async function waitServers(what: string, want: string[], n = 6): Promise<void> {
  await until(
    what,
    async () => {
      const answers = await controlPlaneAnswers(n);
      if ([...new Set(answers)].sort().join(',') === [...want].sort().join(',')) return true;
      throw new Error(`answered by ${answers.join(' ')}`);
    },
    120_000,
    2000,
  );
}

/** `ssh` from the node to the jump host's NodePort as ubuntu, with one key only. */
const sshArgv = (key: string, command: string[]) => [...jumpHostSsh(NODE, ports.jumpHost, key), ...command];
const ssh = (key: string, command: string[]) => inNode(sshArgv(key, command), 60_000);

/** A command in the jump host's container. */
const inJumpHost = (command: string[]) =>
  kubectl(['exec', '-n', ns, `deploy/jumphost-${cluster.name}`, '-c', 'jumphost', '--', ...command], 60_000);

beforeAll(async () => {
  let t0 = Date.now();
  images = await loadSipImages(inject('e2eCluster'));
  timings['SIP images built and loaded'] = secs(t0);
  t0 = Date.now();
  for (const ip of addresses) await inNodeOk(['ip', 'addr', 'add', `${ip}/32`, 'dev', LINK]);
  for (const k of Object.values(keys))
    await inNodeOk(['ssh-keygen', '-q', '-t', 'ed25519', '-N', '', '-C', k.split('/').pop()!, '-f', k]);
  const certs = await makeTestCertificates(['kubernetes']);
  writeFileSync(join(work, 'tls.json'), JSON.stringify({ cert: certs.certPem, key: certs.keyPem }));
  chmodSync(work, 0o755);
  for (const name of hostNames) await startHost(name);
  timings['fake hosts started'] = secs(t0);

  t0 = Date.now();
  // On the first real node: the workers' addresses are on its link (inNode).
  await openstackNamespaceOnRealNode(client, ns, 'real-node');
  await helmInstall(release, 'sip-operator', system, {
    ...operatorOnRealNodeValues,
    installBareMetalHostCRD: true,
    relatedImages: { haproxy: images.haproxy, jumpHost: images.jumphost },
  });
  timings['sip-operator installed'] = secs(t0);
  t0 = Date.now();
  await apply(testDoublePods());
  await apply([
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'node-ssh-keys', namespace: ns },
      stringData: { id_ed25519: readFileSync(keys.node, 'utf8') },
    } as KubeObject,
    ...hostNames.flatMap(bmh),
    sipCluster(2, false),
  ]);
  await podsReady(client, ns, 'app in (fake-hosts-sshd, fake-bmc)', 2, 120_000);
  await podsReady(client, ns, lbPods('controlplane'), 1, 180_000);
  await podsReady(client, ns, lbPods('worker'), 1, 180_000);
  await podsReady(client, ns, jumpHostPods, 1, 180_000);
  timings['SIP services Ready on the real node'] = secs(t0);
});

afterAll(async () => {
  console.log(
    `[e2e] sip timings: ${Object.entries(timings)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}`,
  );
  for (const name of [...servers.keys()]) await stopHost(name as HostName);
  await cleanUp(client, [cluster], [{ release, namespace: system }]);
  await deleteNamespaces(client, [ns, system]);
  // The chart keeps the BareMetalHost CRD it installed (resource-policy keep): the files after
  // this one find the cluster as it was.
  const crd = { name: 'baremetalhosts.metal3.io' };
  const bmhCrd = await client.get(Kinds.CustomResourceDefinition, crd).catch(() => undefined);
  if (bmhCrd?.metadata.annotations?.['meta.helm.sh/release-namespace'] === system)
    await client.delete(Kinds.CustomResourceDefinition, crd).catch(() => false);
  for (const ip of addresses) await inNode(['ip', 'addr', 'del', `${ip}/32`, 'dev', LINK]);
  rmSync(work, { recursive: true, force: true });
});

describe('SIP services on the real node', () => {
  it('runs the load balancers and the jump host from the stand-in images, Ready through their probes; haproxy accepts its config', async () => {
    for (const selector of [lbPods('controlplane'), lbPods('worker'), jumpHostPods]) {
      const [pod] = await podsReady(client, ns, selector, 1);
      expect(pod!.spec.nodeName).toBe('real-node');
      expect(pod!.status?.containerStatuses?.[0]?.restartCount).toBe(0);
      expect([images.haproxy, images.jumphost]).toContain(pod!.spec.containers[0]!.image);
    }
    for (const role of ['controlplane', 'worker'] as const) {
      const out = await kubectl([
        'exec',
        '-n',
        ns,
        `deploy/loadbalancer-${role}-${cluster.name}`,
        '--',
        'haproxy',
        '-c',
        '-f',
        '/usr/local/etc/haproxy/haproxy.cfg',
      ]);
      expect(out).toContain('Configuration file is valid');
    }
  });

  it('control-plane LB: https://<node>:<nodePort> reaches the hosts API servers round robin', async () => {
    await waitServers('both control-plane hosts serving', ['cp-1', 'cp-2']);
    // Each request a new connection: the hosts take turns (haproxy's threads share the rotation, so
    // two in a row can happen; the split stays even).
    const answers = await controlPlaneAnswers(10);
    const count = (h: string) => answers.filter((a) => a === h).length;
    expect(count('cp-1') + count('cp-2'), answers.join(' ')).toBe(10);
    expect(Math.min(count('cp-1'), count('cp-2')), answers.join(' ')).toBeGreaterThanOrEqual(4);
  });

  it('control-plane LB: a host whose /readyz fails is taken out, and back in when it passes', async () => {
    writeFileSync(unready('cp-2'), '');
    try {
      await waitServers('cp-2 taken out', ['cp-1']);
      expect(await controlPlaneAnswers(6)).toEqual(Array(6).fill('cp-1'));
    } finally {
      rmSync(unready('cp-2'), { force: true });
    }
    await waitServers('cp-2 back', ['cp-1', 'cp-2']);
  });

  it('control-plane LB: no request fails when a host has just gone down (retries and redispatch)', async () => {
    await waitServers('both control-plane hosts serving', ['cp-1', 'cp-2']);
    await stopHost('cp-2');
    try {
      // Right after the stop, before a health check can mark cp-2 down: every request still succeeds.
      const answers = await controlPlaneAnswers(8);
      expect(answers).toEqual(Array(8).fill('cp-1'));
    } finally {
      await startHost('cp-2');
    }
  });

  it('worker LB: every port of nodePortRange is forwarded to the same port on the workers', async () => {
    for (const port of ports.workers) {
      const seen = await until(
        `both workers on port ${port}`,
        async () => {
          const got = new Set<string>();
          for (let i = 0; i < 4; i++)
            got.add((await inNodeOk(['curl', '-s', '--max-time', '10', `http://${NODE}:${port}/`])).trim());
          return got.size === 2 ? got : undefined;
        },
        60_000,
        2000,
      );
      expect([...seen].sort()).toEqual([`worker-1:${port}`, `worker-2:${port}`]);
    }
  });

  it('jump host: lets in exactly the keys of sshAuthorizedKeys, as ubuntu (1000)', async () => {
    const ok = await ssh(keys.tenant, ['echo', '$(id -u)', '$(id -un)']);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout.trim()).toBe('1000 ubuntu');
    const refused = await ssh(keys.stranger, ['true']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/Permission denied \(publickey\)/);
  });

  it("jump host: `ssh <host>` reaches each host by its alias with nodeSSHPrivateKeys, and ~/.ssh is the user's", async () => {
    for (const name of ['cp-1', 'worker-2'] as const) {
      const r = await ssh(keys.tenant, [
        'ssh',
        '-o',
        'BatchMode=yes',
        '-o',
        'StrictHostKeyChecking=accept-new',
        name,
        "'echo $SSH_CONNECTION'",
      ]);
      expect(r.code, r.stderr).toBe(0);
      // SSH_CONNECTION: client ip, client port, server ip, server port
      expect(r.stdout.trim().split(' ').slice(2)).toEqual([hosts[name].ip, '22']);
      expect(r.stderr).not.toMatch(/Failed to add the host/);
    }
    // known_hosts (hashed, as Debian's ssh_config says) now holds the hosts' keys
    const known = await ssh(keys.tenant, ['ssh-keygen', '-F', hosts['cp-1'].ip]);
    expect(known.stdout).toContain(`Host ${hosts['cp-1'].ip} found`);
  });

  it("jump host: `host status` asks the host's Redfish BMC (sushy-tools), NO_PROXY when bmc.proxy is false", async () => {
    expect((await inJumpHost(['host', 'list'])).trim().split('\n').sort()).toEqual([
      'cp-1',
      'cp-2',
      'worker-1',
      'worker-2',
    ]);
    expect((await inJumpHost(['host', 'status', 'worker-1'])).trim()).toBe('worker-1: power On');
    // bmc.proxy false: a proxy in the environment is not used for the BMC
    const proxy = await startInNode([
      process.execPath,
      fakeHostScript,
      'proxy',
      PROXY.ip,
      String(PROXY.port),
    ]);
    try {
      const proxyUrl = `http://${PROXY.ip}:${PROXY.port}`;
      const viaEnv = ['env', `http_proxy=${proxyUrl}`, `HTTP_PROXY=${proxyUrl}`, 'host', 'status', 'cp-1'];
      expect((await inJumpHost(viaEnv)).trim()).toBe('cp-1: power On');
      expect(proxy.output()).not.toMatch(/proxied/);
      // bmc.proxy true: the same request goes through the proxy
      await apply([sipCluster(2, true)]);
      await until(
        'the jump host rolled without NO_PROXY',
        async () => {
          const pods = await podsReady(client, ns, jumpHostPods, 1);
          const [container] = pods[0]!.spec.containers as { env?: { name: string }[] }[];
          return container?.env?.some((e) => e.name === 'NO_PROXY') ? undefined : true;
        },
        180_000,
      );
      expect((await inJumpHost(viaEnv)).trim()).toBe('cp-1: power On');
      expect(proxy.output()).toMatch(new RegExp(`proxied GET http://${BMC.ip}:${BMC.port}/redfish/v1/`));
    } finally {
      await proxy.stop();
    }
    // A reboot through the BMC (the emulator accepts the reset).
    await inJumpHost(['host', 'reboot', 'cp-1']);
  });

  it('a host added and one removed change the LB backends and the jump host hosts; established connections to the others stay', async () => {
    await waitServers('both control-plane hosts serving', ['cp-1', 'cp-2']);
    // One TLS connection through the LB, used every 500 ms throughout both rollouts.
    const held = await startInNode([
      process.execPath,
      fakeHostScript,
      'hold',
      `https://${NODE}:${ports.controlPlane}/`,
    ]);
    // …and one ssh session through the jump host, to a host, open throughout.
    const session = await startInNode(
      sshArgv(keys.tenant, [
        'ssh -o StrictHostKeyChecking=accept-new worker-1 "echo ready; while sleep 1; do echo tick; done"',
      ]),
      60_000,
    );
    try {
      await apply([sipCluster(3, true)]);
      await waitServers('cp-3 added to the LB', ['cp-1', 'cp-2', 'cp-3'], 9).catch(async (err: unknown) => {
        console.error(
          '[e2e] sip: ',
          JSON.stringify((await client.get(SIPClusterKind, cluster))?.['status']),
          await kubectl(['get', 'pods,deploy', '-n', ns, '-o', 'wide']),
          await kubectl([
            'get',
            'secret',
            '-n',
            ns,
            `loadbalancer-controlplane-${cluster.name}`,
            '-o',
            'jsonpath={.data.haproxy\\.cfg}',
          ]).then((b) => Buffer.from(b, 'base64').toString()),
        );
        throw err;
      });
      await until(
        'cp-3 on the jump host',
        async () => ((await inJumpHost(['host', 'list'])).includes('cp-3') ? true : undefined),
        180_000,
      );
      // A new ssh session may still reach the jump host's previous pod (Ready until the rollout
      // scales it down) for a moment: a user retries, and so does the test.
      let last: Awaited<ReturnType<typeof ssh>> | undefined;
      const r = await until(
        'cp-3 reached by name through the jump host',
        async () => {
          last = await ssh(keys.tenant, [
            'ssh',
            '-o',
            'StrictHostKeyChecking=accept-new',
            'cp-3',
            "'echo $SSH_CONNECTION'",
          ]);
          return last.code === 0 && last.stdout.trim() ? last : undefined;
        },
        120_000,
      ).catch((err: unknown) => {
        throw new Error(`${err instanceof Error ? err.message : String(err)}; last ssh: ${last?.stderr}`);
      });
      expect(r.stdout.trim().split(' ')[2], r.stderr).toBe(hosts['cp-3'].ip);

      await apply([sipCluster(2, true)]);
      const kept = await until(
        'a control-plane host released',
        async () => {
          const obj = (await client.get(SIPClusterKind, cluster)) as KubeObject & {
            status?: { nodes?: Record<string, { hosts?: string[] }> };
          };
          const hostsHeld = obj.status?.nodes?.['ControlPlane']?.hosts ?? [];
          return hostsHeld.length === 2 ? hostsHeld.map((h) => h.split('/').pop()!) : undefined;
        },
        120_000,
      );
      await waitServers('the released host out of the LB', kept, 6);
      await until(
        'the released host off the jump host',
        async () => ((await inJumpHost(['host', 'list'])).trim().split('\n').length === 4 ? true : undefined),
        180_000,
      );

      const answers = held
        .output()
        .split('\n')
        .filter((l) => l.startsWith('answer ') || l.startsWith('error '));
      const first = answers[0]!.split(' ')[1]!;
      expect(kept).toContain(first.split(':')[0]);
      // every request on the held connection: the same host, on the same connection, none failed
      expect(answers.length).toBeGreaterThan(10);
      expect(answers.slice(1).filter((a) => a !== `answer ${first} reused`)).toEqual([]);
      const ticks = session.output().split('\n');
      expect(session.child.exitCode).toBeNull();
      expect(ticks.filter((t) => t === 'tick').length).toBeGreaterThan(10);
    } finally {
      await held.stop();
      await session.stop();
    }
  });
});
