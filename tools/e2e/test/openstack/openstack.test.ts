import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { examplesDir } from '@stackops/demo/examples';
import { mariadbPod, openstackClientPod, openstackNamespaceOnRealNode } from '@stackops/demo/openstack-pods';
import { operatorOnRealNodeValues, realNodeTaint } from '@stackops/demo/real-node';
import {
  KeystoneAPIKind,
  KeystoneEndpointKind,
  KeystoneServiceKind,
  OPENSTACK_NAMESPACE,
  PlacementAPIKind,
} from '@stackops/demo/targets';
import type { WorkloadImageName } from '@stackops/images/workloads';
import { setRealNodeFrozen } from '@stackops/kube-env';
import { type KindRef, Kinds, type KubeObject } from '@stackops/lib-common/client';
import { ExternalKinds, type MariaDBAccount, type MariaDBDatabase } from '@stackops/lib-common/external';
import { installCrds, readCrds, waitForDeletion } from '@stackops/lib-common/testing';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { parse, stringify } from 'yaml';
import {
  applyObjects,
  expectSeedStorageIp,
  installNetworkAddons,
  installWhereabouts,
  seedStorageNad,
  uninstallNetworkAddons,
  uninstallWhereabouts,
} from '../network-addons/support.js';
import {
  adminClient,
  applyExample,
  cleanUp,
  deleteNamespaces,
  helmInstall,
  kubectl,
  onFirstNode,
  type PodShape,
  realNodes,
  repoRoot,
  scratchFile,
  waitForCondition,
} from '../support.js';
import { loadWorkloadImages, makeTestCertificates, podsReady, until } from './support.js';

/**
 * What the operators deploy, run for real: MariaDB, Keystone and Placement from the stand-in TCIB
 * images, on the real node, started by keystone-operator and placement-operator running in-cluster
 * from their charts. kwok marks nothing Ready here: Jobs succeed because keystone-manage and the
 * MariaDB client did their work, pods are Ready because kubelet's probes got answers from httpd.
 */
const ns = OPENSTACK_NAMESPACE;
const client = adminClient();
const keystone = { kind: KeystoneAPIKind, namespace: ns, name: 'keystone' };
const placement = { kind: PlacementAPIKind, namespace: ns, name: 'placement' };
const releases = [
  { release: 'keystone-operator', namespace: 'stackops-system' },
  { release: 'placement-operator', namespace: 'stackops-system' },
];
const timings: Record<string, string> = {};
let images: Record<WorkloadImageName, string>;
const keystonePods = 'service=keystone,!job-name';

/** Waits (up to 5 min) until exactly `count` keystone API pods are Ready, each with a spec that passes `check`. */
function keystonePodsWhere(what: string, count: number, check: (spec: PodShape['spec']) => unknown) {
  return until(
    what,
    async () => {
      const ready = await podsReady(client, ns, keystonePods, count, 1000).catch(() => undefined);
      return ready?.every((p) => check(p.spec)) ? ready : undefined;
    },
    300_000,
  );
}

const spreadByTopology = (spec: PodShape['spec']) =>
  (spec as { topologySpreadConstraints?: unknown[] }).topologySpreadConstraints?.length;

/** A seed example without its `containerImage`, so that the operator's default (the chart's relatedImages) applies. */
function seedWithoutImage(file: string): KubeObject {
  const obj = parse(readFileSync(join(examplesDir, file), 'utf8')) as KubeObject & {
    spec: Record<string, unknown>;
  };
  delete obj.spec['containerImage'];
  return { ...obj, metadata: { ...obj.metadata, namespace: ns } };
}

async function apply(obj: KubeObject): Promise<void> {
  await kubectl(['apply', '--server-side', '-f', scratchFile('object.yaml', stringify(obj))]);
}

/** A command in the MariaDB pod (it has bash and the MariaDB client). */
const inMariadbPod = (args: string[]) => kubectl(['exec', '-n', ns, 'mariadb', '--', ...args]);

/** `sql` as the MariaDB user `user`, over TCP, so that the account's host rules apply. */
const mariadbAs = (user: string, password: string, sql: string) =>
  inMariadbPod([
    'env',
    `MYSQL_PWD=${password}`,
    'mariadb',
    '--no-defaults',
    '-h',
    '127.0.0.1',
    '-u',
    user,
    '-N',
    '-e',
    sql,
  ]);

/** `openstack …` in the openstackclient pod (clouds.yaml and secure.yaml from the operator). */
/** `bash -c script args…` in the openstackclient pod (its clouds.yaml is the admin's); stdout. */
const inClientPod = (script: string, args: string[] = [], timeoutMs?: number) =>
  kubectl(['exec', '-n', ns, 'openstackclient', '--', 'bash', '-c', script, ...args], timeoutMs);
const openstack = (args: string) => inClientPod(`openstack ${args}`, [], 120_000);

beforeAll(async () => {
  const t0 = Date.now();
  images = await loadWorkloadImages(inject('e2eCluster'));
  timings['workload images built and loaded'] = `${((Date.now() - t0) / 1000).toFixed(1)}s`;
  // Every pod of the namespace on the real node (PodNodeSelector, PodTolerationRestriction); the
  // operators select it and tolerate its taint through their chart values.
  await openstackNamespaceOnRealNode(client);
  await applyExample('00-openstack-prereqs.yaml', ns);
  await client.apply(Kinds.Pod, onFirstNode(mariadbPod(images.mariadb)));
  // Two replicas (one per node, one leader): the lost-node test sees the Lease handed over.
  await helmInstall('keystone-operator', 'keystone-operator', 'stackops-system', {
    ...operatorOnRealNodeValues,
    replicas: 2,
    relatedImages: { keystoneAPI: images.keystone, mariadb: images.mariadb },
  });
  await helmInstall('placement-operator', 'placement-operator', 'stackops-system', {
    ...operatorOnRealNodeValues,
    relatedImages: { placementAPI: images.placement, mariadb: images.mariadb },
  });
  await podsReady(client, ns, 'app=mariadb', 1, 120_000);
});

// mariadb-operator's CRDs as tools/crd-types describes them (ADR 0013), for the Galera block.
const mariadbCrds = () =>
  ['galeras', 'mariadbdatabases', 'mariadbaccounts'].flatMap((plural) =>
    readCrds(join(repoRoot, 'tools/crd-types/crds', `mariadb.openstack.org_${plural}.yaml`)),
  );
const mariadbCrs = ['keystone', 'placement'].flatMap((name) => [
  { kind: ExternalKinds.MariaDBDatabase, namespace: ns, name },
  { kind: ExternalKinds.MariaDBAccount, namespace: ns, name },
]);

afterAll(async () => {
  process.stderr.write(`[openstack e2e] timings: ${JSON.stringify(timings)}\n`);
  await storageNetworkDown();
  await cleanUp(client, [placement, keystone, ...mariadbCrs], releases);
  await deleteNamespaces(client, [ns]);
  for (const crd of mariadbCrds())
    await client.delete(Kinds.CustomResourceDefinition, { name: crd.metadata.name ?? '' }).catch(() => false);
  client.close();
});

type JobShape = KubeObject & { status?: { succeeded?: number; startTime?: string; completionTime?: string } };

describe('Keystone from the seed KeystoneAPI', () => {
  it('runs db-create, db-sync and bootstrap for real and serves /v3 from Ready pods on the real node', async () => {
    const t0 = Date.now();
    await apply(seedWithoutImage('10-keystoneapi.yaml'));
    const cr = await waitForCondition(client, KeystoneAPIKind, keystone, 'Ready', 'True', 420_000);
    timings['KeystoneAPI Ready'] = `${((Date.now() - t0) / 1000).toFixed(1)}s`;
    for (const name of ['keystone-db-create', 'keystone-db-sync', 'keystone-bootstrap']) {
      const job = await client.get<JobShape>(Kinds.Job, { namespace: ns, name });
      expect(job?.status?.succeeded, name).toBe(1);
      const s = job?.status;
      if (s?.startTime && s.completionTime)
        timings[name] = `${(Date.parse(s.completionTime) - Date.parse(s.startTime)) / 1000}s`;
    }
    const pods = await podsReady(client, ns, keystonePods, 1);
    const pod = pods[0] as PodShape;
    expect(realNodes).toContain(pod.spec.nodeName);
    expect(pod.spec.containers[0]?.image).toBe(images.keystone);
    expect(pod.status?.containerStatuses?.[0]?.restartCount).toBe(0);
    expect((cr['status'] as { readyCount?: number }).readyCount).toBe(1);
    // The readiness probe is kubelet's GET /v3 on the pod IP; the same request through the Service:
    const v3 = await inMariadbPod([
      'bash',
      '-c',
      'exec 3<>/dev/tcp/keystone-internal.openstack.svc/5000 && printf "GET /v3 HTTP/1.0\\r\\nHost: keystone\\r\\n\\r\\n" >&3 && cat <&3',
    ]);
    expect(v3).toMatch(/^HTTP\/1\.1 200/);
    expect(v3).toContain('"id": "v3.');
  });

  it('issues a token and lists keystone endpoints from an openstackclient pod using openstack-config', async () => {
    await client.apply(Kinds.Pod, onFirstNode(openstackClientPod(images.openstackclient)));
    await until('openstackclient running', async () => {
      const p = await client.get<PodShape>(Kinds.Pod, { namespace: ns, name: 'openstackclient' });
      return p?.status?.phase === 'Running' ? p : undefined;
    });
    const token = JSON.parse(await openstack('token issue -f json')) as { id?: string; expires?: string };
    expect(token.id).toMatch(/^gAAAAA/);
    const endpoints = JSON.parse(await openstack('endpoint list -f json')) as {
      'Service Name': string;
      Interface: string;
      URL: string;
    }[];
    const ks = endpoints.filter((e) => e['Service Name'] === 'keystone');
    expect(ks.map((e) => [e.Interface, e.URL]).sort()).toEqual([
      ['internal', 'http://keystone-internal.openstack.svc:5000'],
      ['public', 'http://keystone-public.openstack.svc:5000'],
    ]);
  });
});

/**
 * An HTTP request from the openstackclient pod with a fresh admin token (and `headers`): the
 * status code and body, whatever the status.
 */
async function requestAsAdmin(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string }> {
  const script = [
    'import json, sys, urllib.request, urllib.error',
    'url, token, extra = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])',
    'req = urllib.request.Request(url, headers={"X-Auth-Token": token, **extra})',
    'try:',
    '    r = urllib.request.urlopen(req, timeout=30); print(json.dumps({"status": r.status, "body": r.read().decode()}))',
    'except urllib.error.HTTPError as e:',
    '    print(json.dumps({"status": e.code, "body": e.read().decode()}))',
  ].join('\n');
  const out = await inClientPod(
    'python3 -c "$1" "$2" "$(openstack token issue -f value -c id)" "$3"',
    ['request', script, url, JSON.stringify(headers)],
    120_000,
  );
  return JSON.parse(out) as { status: number; body: string };
}

/** Prints the IPv4 address (SIOCGIFADDR) of the pod's interface `name`, or fails when it has none. */
const interfaceAddress = (name: string) =>
  [
    'import fcntl, socket, struct',
    's = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)',
    `print(socket.inet_ntoa(fcntl.ioctl(s.fileno(), 0x8915, struct.pack('256s', b'${name}'))[20:24]))`,
  ].join('; ');

/** A command in a pod of the namespace (`kubectl exec`); its output. */
const inPod = (pod: string, ...command: string[]) => kubectl(['exec', '-n', ns, pod, '--', ...command]);

/**
 * Sets `networkAttachments: [storage]` on the CR and waits until its pod was rolled, Ready, with the
 * CR Ready and its status listing the pod's one IP on `storage`.
 */
async function attachStorage(
  ref: typeof keystone | typeof placement,
  pods: string,
): Promise<{ ips: string[]; pod: string }> {
  const before = (await podNames(pods)).map((p) => p.name);
  await client.patch(ref.kind, ref, { spec: { networkAttachments: ['storage'] } }, 'merge');
  return until(
    `${ref.kind} status.networkAttachments lists the rolled pod on storage, Ready`,
    async () => {
      const cr = await client.get<
        KubeObject & {
          status?: {
            conditions?: { type: string; status: string }[];
            networkAttachments?: Record<string, string[]>;
          };
        }
      >(ref.kind, ref);
      const ips = cr?.status?.networkAttachments?.[`${ns}/storage`];
      const ready = cr?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
      const running = await podsReady(client, ns, pods, 1, 5000).catch(() => undefined);
      const rolled = running && !before.includes(running[0]?.metadata.name ?? '');
      return ready && rolled && ips?.length === 1 ? { ips, pod: running[0]!.metadata.name! } : undefined;
    },
    300_000,
  );
}

/** Removes the attachment; waits for a new Ready pod instead of `attachedPod` and the CR Ready. Returns the pod. */
async function detachStorage(
  ref: typeof keystone | typeof placement,
  pods: string,
  attachedPod: string,
): Promise<string> {
  await client.patch(ref.kind, ref, { spec: { networkAttachments: null } }, 'merge');
  const plain = await until(
    `the ${ref.kind} pod rolled without the storage interface`,
    async () => {
      const running = await podsReady(client, ns, pods, 1, 5000).catch(() => undefined);
      const name = running?.[0]?.metadata.name;
      return name && name !== attachedPod ? name : undefined;
    },
    300_000,
  );
  await waitForCondition(client, ref.kind, ref, 'Ready', 'True', 120_000);
  return plain;
}

/**
 * The seeds' storage network (network-addons with multus, whereabouts, the NAD), installed once for
 * the Keystone and Placement networkAttachments tests, removed after the second (or by afterAll).
 */
let storageNetwork = false;
async function storageNetworkUp(): Promise<void> {
  if (storageNetwork) return;
  storageNetwork = true;
  await installNetworkAddons(inject('e2eCluster'));
  await installWhereabouts(inject('e2eCluster'));
  await applyObjects([seedStorageNad(ns)]);
}
async function storageNetworkDown(): Promise<void> {
  if (!storageNetwork) return;
  storageNetwork = false;
  await uninstallWhereabouts();
  await uninstallNetworkAddons();
}

const keystoneApi = () =>
  client.get<KubeObject & { status?: { readyCount?: number; hash?: Record<string, string> } }>(
    KeystoneAPIKind,
    keystone,
  );

/** infra-operator's Topology CRD as tools/crd-types describes it, for the spreading test. */
const topologyCrds = () =>
  readCrds(join(repoRoot, 'tools/crd-types/crds/topology.openstack.org_topologies.yaml'));
const spreadTopology = { kind: ExternalKinds.Topology, namespace: ns, name: 'one-per-host' };

/**
 * A token request loop in the openstackclient pod, through the keystone-internal Service, as
 * admin, until `stop()`; then the counts (and the first four errors and the last, each with its time).
 */
interface TokenLoopCounts {
  ok: number;
  failed: number;
  /** `HH:MM:SS <error>`: the first four and the last. */
  errors: string[];
  /** `HH:MM:SS <seconds>s`: successful requests that took over 3 s (a cold or lost endpoint). */
  slow: string[];
  /** Tokens issued after the last error (all of them when none failed). */
  okAfterLastError: number;
}

function tokenLoop(adminPassword: string): { stop: () => Promise<TokenLoopCounts> } {
  const script = [
    'import json, os, sys, time, urllib.request',
    'body = json.dumps({"auth": {"identity": {"methods": ["password"], "password": {"user": {"name": "admin", "domain": {"name": "Default"}, "password": sys.argv[1]}}}, "scope": {"project": {"name": "admin", "domain": {"name": "Default"}}}}}).encode()',
    'ok, after, errors, slow, end = 0, 0, [], [], time.time() + 900',
    'while not os.path.exists("/tmp/stop-token-loop") and time.time() < end:',
    '    t0, at = time.time(), time.strftime("%H:%M:%S")',
    '    try:',
    '        r = urllib.request.urlopen(urllib.request.Request("http://keystone-internal.openstack.svc:5000/v3/auth/tokens", data=body, headers={"Content-Type": "application/json"}), timeout=10)',
    '        ok += r.status == 201',
    '        after += r.status == 201',
    '        if time.time() - t0 > 3: slow.append(f"{at} {time.time() - t0:.1f}s")',
    '    except Exception as e:',
    '        errors.append(f"{at} {e} (after {time.time() - t0:.1f}s)")',
    '        after = 0',
    '    time.sleep(0.2)',
    'os.remove("/tmp/stop-token-loop")',
    'print(json.dumps({"ok": ok, "failed": len(errors), "errors": errors[:4] + errors[-1:] if len(errors) > 4 else errors, "slow": slow, "okAfterLastError": after}))',
  ].join('\n');
  const run = kubectl(
    ['exec', '-n', ns, 'openstackclient', '--', 'python3', '-c', script, adminPassword],
    960_000,
  );
  // Awaited by stop(); a test that fails before leaves it to end with the pod.
  run.catch(() => undefined);
  return {
    stop: async () => {
      await kubectl(['exec', '-n', ns, 'openstackclient', '--', 'touch', '/tmp/stop-token-loop']);
      return JSON.parse(await run) as TokenLoopCounts;
    },
  };
}

const adminPassword = async () => {
  const secret = await client.get<KubeObject & { data?: Record<string, string> }>(Kinds.Secret, {
    namespace: ns,
    name: 'osp-secret',
  });
  return Buffer.from(secret?.data?.['AdminPassword'] ?? '', 'base64').toString();
};

const conditionStatus = async (type: string) =>
  (
    (await keystoneApi())?.status as { conditions?: { type: string; status: string }[] } | undefined
  )?.conditions?.find((c) => c.type === type)?.status;

describe('Keystone on two real nodes', () => {
  it('replicas 2 with a Topology spreading on kubernetes.io/hostname: one pod per node, and a PodDisruptionBudget', async () => {
    const t0 = Date.now();
    await installCrds(client, topologyCrds());
    await client.apply(ExternalKinds.Topology, {
      apiVersion: 'topology.openstack.org/v1beta1',
      kind: 'Topology',
      metadata: { name: spreadTopology.name, namespace: ns },
      spec: {
        topologySpreadConstraints: [
          { maxSkew: 1, topologyKey: 'kubernetes.io/hostname', whenUnsatisfiable: 'DoNotSchedule' },
        ],
      },
    });
    // The Topology first, then the second replica: spread constraints hold when a pod is
    // scheduled, and a rollout of two pods could end with both on one node (old pods counted
    // while the new ones are placed); one pod rolled, the second must go to the other node.
    await client.patch(
      KeystoneAPIKind,
      keystone,
      { spec: { topologyRef: { name: spreadTopology.name } } },
      'merge',
    );
    await keystonePodsWhere('the pod placed by the Topology', 1, spreadByTopology);
    await client.patch(KeystoneAPIKind, keystone, { spec: { replicas: 2 } }, 'merge');
    // The pods of the rollout that placed them by the Topology (the first pass may scale the old
    // template before the Topology is read).
    const pods = await keystonePodsWhere('two Ready pods spread by the Topology', 2, spreadByTopology);
    expect(pods.map((p) => p.spec.nodeName).sort()).toEqual([...realNodes].sort());
    await until('readyCount 2, PDBReady', async () =>
      (await keystoneApi())?.status?.readyCount === 2 && (await conditionStatus('PDBReady')) === 'True'
        ? true
        : undefined,
    );
    const pdb = await client.get<KubeObject & { spec?: object; status?: { disruptionsAllowed?: number } }>(
      Kinds.PodDisruptionBudget,
      { namespace: ns, name: 'keystone' },
    );
    expect(pdb?.spec).toEqual({
      maxUnavailable: 1,
      selector: { matchLabels: { service: 'keystone', owner: 'keystone' } },
    });
    expect(pdb?.metadata.ownerReferences?.[0]).toMatchObject({ kind: 'KeystoneAPI', name: 'keystone' });
    timings['two nodes: spread'] = `${((Date.now() - t0) / 1000).toFixed(1)}s`;
  });

  it('kubectl drain never takes the last ready API pod down: a token loop through the Service counts zero failures', async () => {
    const t0 = Date.now();
    const pods = await podsReady(client, ns, keystonePods, 2);
    const [first, second] = pods.map((p) => p.spec.nodeName ?? '');
    const loop = tokenLoop(await adminPassword());
    try {
      await until('the PodDisruptionBudget allows one disruption', async () => {
        const pdb = await client.get<KubeObject & { status?: { disruptionsAllowed?: number } }>(
          Kinds.PodDisruptionBudget,
          { namespace: ns, name: 'keystone' },
        );
        return pdb?.status?.disruptionsAllowed === 1 ? true : undefined;
      });
      // Only keystone's pods are drained: MariaDB and the openstackclient are bare pods, which a
      // drain would delete, and the loop needs both.
      const drain = (node: string, timeout: string) =>
        kubectl(
          [
            'drain',
            node,
            '--pod-selector',
            keystonePods,
            '--ignore-daemonsets',
            '--delete-emptydir-data',
            `--timeout=${timeout}`,
          ],
          300_000,
        );
      // The pod on the first node goes (one of two may); its replacement cannot start: the other
      // node would then hold both, over the Topology's skew, and the first is cordoned.
      await drain(first ?? '', '240s');
      await until('readyCount 1, DeploymentReady False', async () =>
        (await keystoneApi())?.status?.readyCount === 1 &&
        (await conditionStatus('DeploymentReady')) === 'False'
          ? true
          : undefined,
      );
      // Draining the second node must not evict the last ready pod: the budget refuses.
      await expect(drain(second ?? '', '20s')).rejects.toThrow(/disruption budget|timeout|timed out/i);
      const ready = (
        await client.list<PodShape>(Kinds.Pod, { namespace: ns, labelSelector: keystonePods })
      ).items
        .filter((p) => p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'))
        .map((p) => p.spec.nodeName);
      expect(ready).toEqual([second]);
    } finally {
      for (const node of realNodes) await kubectl(['uncordon', node]);
    }
    await podsReady(client, ns, keystonePods, 2, 300_000);
    const counts = await loop.stop();
    expect(counts.errors).toEqual([]);
    expect(counts.failed).toBe(0);
    expect(counts.ok).toBeGreaterThan(10);
    timings['two nodes: drain'] =
      `${((Date.now() - t0) / 1000).toFixed(1)}s (${counts.ok} tokens; slow: ${counts.slow.join(', ') || '-'})`;
  });

  it('back to one replica without a Topology: the PodDisruptionBudget and PDBReady go', async () => {
    await client.patch(KeystoneAPIKind, keystone, { spec: { replicas: 1, topologyRef: null } }, 'merge');
    await podsReady(client, ns, keystonePods, 1, 300_000);
    await until('no PodDisruptionBudget, no PDBReady', async () =>
      !(await client.get(Kinds.PodDisruptionBudget, { namespace: ns, name: 'keystone' })) &&
      (await conditionStatus('PDBReady')) === undefined
        ? true
        : undefined,
    );
    await waitForCondition(client, KeystoneAPIKind, keystone, 'Ready', 'True', 300_000);
    await client.delete(ExternalKinds.Topology, spreadTopology);
    await waitForDeletion(client, ExternalKinds.Topology, spreadTopology, { timeoutMs: 60_000 });
  });
});

type Lease = KubeObject & {
  spec?: { holderIdentity?: string; leaseDurationSeconds?: number; renewTime?: string; acquireTime?: string };
};
const operatorLease = { namespace: 'stackops-system', name: 'keystone-operator-leader' };
const leaseHolderPod = async () => {
  const lease = await client.get<Lease>(Kinds.Lease, operatorLease);
  const pods = (
    await client.list<PodShape>(Kinds.Pod, {
      namespace: 'stackops-system',
      labelSelector: 'app.kubernetes.io/name=keystone-operator',
    })
  ).items;
  const pod = pods.find((p) => lease?.spec?.holderIdentity?.startsWith(`${p.metadata.name}_`));
  return pod && lease ? { pod, lease } : undefined;
};
type NodeShape = KubeObject & { status?: { conditions?: { type: string; status: string }[] } };
const nodeReady = async (name: string) =>
  (await client.get<NodeShape>(Kinds.Node, { name }))?.status?.conditions?.find((c) => c.type === 'Ready')
    ?.status;

describe('Keystone when a node is lost', () => {
  it('readyCount and DeploymentReady follow, the pod comes back on the other node, the operator Lease is handed over, a token loop fails at most one probe period; back, nothing is rewritten', async () => {
    const [first, lost] = realNodes as [string, string];
    try {
      await nodeLost(first, lost);
    } finally {
      // Whatever failed, the tests after this one get both nodes and one Keystone pod back.
      setRealNodeFrozen(inject('e2eCluster'), lost, false);
      await client.patch(KeystoneAPIKind, keystone, { spec: { replicas: 1 } }, 'merge');
    }
  });
});

async function nodeLost(first: string, lost: string): Promise<void> {
  const t0 = Date.now();
  // The pods leave an unreachable or not-ready node after 5 s instead of the 300 s that
  // kube-apiserver adds by default: set on the Deployment's template (the operator sets no
  // tolerations, and its apply leaves fields of other managers alone), which rolls the pods.
  // The tolerations before the second replica: one pod rolled instead of two.
  const quick = (key: string) => ({ key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 5 });
  await client.patch(
    Kinds.Deployment,
    { namespace: ns, name: 'keystone' },
    {
      spec: {
        template: {
          spec: {
            tolerations: [
              { operator: 'Equal', ...realNodeTaint },
              quick('node.kubernetes.io/unreachable'),
              quick('node.kubernetes.io/not-ready'),
            ],
          },
        },
      },
    },
    'merge',
  );
  await client.patch(KeystoneAPIKind, keystone, { spec: { replicas: 2 } }, 'merge');
  await keystonePodsWhere('two Ready pods with the short tolerations', 2, (spec) =>
    (spec as { tolerations?: { tolerationSeconds?: number }[] }).tolerations?.some(
      (t) => t.tolerationSeconds === 5,
    ),
  );
  let pods = await podsReady(client, ns, keystonePods, 2, 300_000);
  expect(pods.map((p) => p.spec.nodeName).sort()).toEqual([first, lost].sort());
  await until('readyCount 2', async () =>
    (await keystoneApi())?.status?.readyCount === 2 ? true : undefined,
  );
  // The operator's leader on the node that goes: its standby must take over. A deleted leader
  // releases the Lease, and its replacement (placed on the first node, away from the standby) may
  // win it: then that one is deleted too, until the standby on the other node holds it.
  const holder = await until('the leader on the other node', async () => {
    const h = await leaseHolderPod();
    if (h && h.pod.spec.nodeName !== lost && !h.pod.metadata.deletionTimestamp) {
      await client.delete(Kinds.Pod, { namespace: 'stackops-system', name: h.pod.metadata.name ?? '' });
      return undefined;
    }
    return h?.pod.spec.nodeName === lost ? h : undefined;
  });
  await until('two keystone-operator pods Ready', async () => {
    const ready = (
      await client.list<PodShape>(Kinds.Pod, {
        namespace: 'stackops-system',
        labelSelector: 'app.kubernetes.io/name=keystone-operator',
      })
    ).items.filter(
      (p) =>
        !p.metadata.deletionTimestamp &&
        p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
    );
    return ready.length === 2 ? true : undefined;
  });

  const loop = tokenLoop(await adminPassword());
  await new Promise((r) => setTimeout(r, 3000));
  const frozenAt = Date.now();
  setRealNodeFrozen(inject('e2eCluster'), lost, true);
  let counts: Awaited<ReturnType<typeof loop.stop>>;
  try {
    const handedOver = await until(
      'the Lease handed over',
      async () => {
        const l = await client.get<Lease>(Kinds.Lease, operatorLease);
        return l?.spec?.holderIdentity && l.spec.holderIdentity !== holder.lease.spec?.holderIdentity
          ? l
          : undefined;
      },
      120_000,
      500,
    );
    const leaseMs = (holder.lease.spec?.leaseDurationSeconds ?? 15) * 1000;
    const takenAfterMs = Date.parse(handedOver.spec?.acquireTime ?? '') - frozenAt;
    timings['lost node: Lease handed over after'] = `${(takenAfterMs / 1000).toFixed(1)}s`;
    // The standby takes the Lease once it has seen no renewal for the lease duration: counted
    // from its last look before the freeze, and seen at its next look (2 s retries, +20 %
    // jitter, each), plus the API round trips of a loaded machine.
    expect(takenAfterMs).toBeLessThanOrEqual(leaseMs + 2 * 2400 + 3000);

    await until(
      'node NotReady',
      async () => ((await nodeReady(lost)) !== 'True' ? true : undefined),
      120_000,
      1000,
    );
    await until(
      'readyCount 1, DeploymentReady False',
      async () =>
        (await keystoneApi())?.status?.readyCount === 1 &&
        (await conditionStatus('DeploymentReady')) === 'False'
          ? true
          : undefined,
      120_000,
      1000,
    );
    timings['lost node: readyCount 1 after'] = `${((Date.now() - frozenAt) / 1000).toFixed(1)}s`;
    // Evicted after 5 s, the pod is replaced on the node that is left.
    await until(
      'two Ready keystone pods on the first node, readyCount 2, DeploymentReady True',
      async () => {
        const live = (
          await client.list<PodShape>(Kinds.Pod, { namespace: ns, labelSelector: keystonePods })
        ).items.filter(
          (p) =>
            !p.metadata.deletionTimestamp &&
            p.spec.nodeName === first &&
            p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
        );
        return live.length === 2 &&
          (await keystoneApi())?.status?.readyCount === 2 &&
          (await conditionStatus('DeploymentReady')) === 'True'
          ? true
          : undefined;
      },
      300_000,
      1000,
    );
    timings['lost node: back to 2 ready after'] = `${((Date.now() - frozenAt) / 1000).toFixed(1)}s`;
    counts = await loop.stop();
  } finally {
    setRealNodeFrozen(inject('e2eCluster'), lost, false);
  }
  // Failures only while the lost pod was still an endpoint: no longer than one readiness probe
  // period of keystone's (30 s; the cluster's node-monitor grace period is 20 s).
  const times = counts.errors.map((e) => e.slice(0, 8));
  // Every error and slow request with its time, beside the node's: the failures' cause is in them.
  const loopReport = `frozen at ${new Date(frozenAt).toISOString().slice(11, 19)}; errors: ${counts.errors.join(' | ') || '-'}; slow: ${counts.slow.join(', ') || '-'}`;
  timings['lost node: token loop'] =
    `${counts.ok} ok (${counts.okAfterLastError} after the last error), ${counts.failed} failed; ${loopReport}`;
  // Tokens again after the failures: Keystone answered through the Service on the pod left. Not a
  // total: that depends on how long the replacement takes to be Ready (two 10 s timeouts in a
  // 35 s window once left 10 ok, against 17–19 in 40 s).
  expect(counts.okAfterLastError, loopReport).toBeGreaterThanOrEqual(3);
  expect(counts.failed * 200, loopReport).toBeLessThanOrEqual(30_000);
  if (counts.failed > 1) {
    const secs = (t: string) =>
      Number(t.slice(0, 2)) * 3600 + Number(t.slice(3, 5)) * 60 + Number(t.slice(6, 8));
    expect(secs(times[times.length - 1] ?? '') - secs(times[0] ?? ''), loopReport).toBeLessThanOrEqual(30);
  }

  // The node comes back: kubelet removes what was evicted; nothing of Keystone's is rewritten.
  await until(
    'node Ready again',
    async () => ((await nodeReady(lost)) === 'True' ? true : undefined),
    180_000,
    1000,
  );
  await until('the evicted pod gone', async () => {
    const all = (await client.list<PodShape>(Kinds.Pod, { namespace: ns, labelSelector: keystonePods }))
      .items;
    return all.length === 2 ? true : undefined;
  });
  const snapshot = async () => ({
    keystoneApi: (await keystoneApi())?.metadata.resourceVersion,
    deployment: (await client.get(Kinds.Deployment, { namespace: ns, name: 'keystone' }))?.metadata
      .generation,
    pdb: (await client.get(Kinds.PodDisruptionBudget, { namespace: ns, name: 'keystone' }))?.metadata
      .generation,
    config: (await client.get(Kinds.Secret, { namespace: ns, name: 'keystone-config-data' }))?.metadata
      .resourceVersion,
  });
  const before = await snapshot();
  await new Promise((r) => setTimeout(r, 15_000));
  expect(await snapshot()).toEqual(before);
  pods = await podsReady(client, ns, keystonePods, 2);
  expect(pods.every((p) => p.spec.nodeName === first)).toBe(true);

  await client.patch(KeystoneAPIKind, keystone, { spec: { replicas: 1 } }, 'merge');
  await podsReady(client, ns, keystonePods, 1, 300_000);
  await waitForCondition(client, KeystoneAPIKind, keystone, 'Ready', 'True', 300_000);
  timings['lost node'] = `${((Date.now() - t0) / 1000).toFixed(1)}s`;
}

describe('Placement from the seed PlacementAPI', () => {
  it('runs real placement pods, registers placement in Keystone and answers an authenticated GET /resource_providers', async () => {
    const t0 = Date.now();
    await apply(seedWithoutImage('20-placementapi.yaml'));
    await waitForCondition(client, PlacementAPIKind, placement, 'Ready', 'True', 420_000);
    timings['PlacementAPI Ready'] = `${((Date.now() - t0) / 1000).toFixed(1)}s`;
    const pods = await podsReady(client, ns, 'service=placement,!job-name', 1);
    expect(realNodes).toContain(pods[0]?.spec.nodeName);
    expect(pods[0]?.spec.containers.map((c) => c.image)).toContain(images.placement);
    await waitForCondition(
      client,
      KeystoneServiceKind,
      { namespace: ns, name: 'placement' },
      'Ready',
      'True',
    );
    await waitForCondition(
      client,
      KeystoneEndpointKind,
      { namespace: ns, name: 'placement' },
      'Ready',
      'True',
    );
    const endpoints = JSON.parse(await openstack('endpoint list --service placement -f json')) as {
      Interface: string;
      URL: string;
    }[];
    expect(endpoints.map((e) => [e.Interface, e.URL]).sort()).toEqual([
      ['internal', 'http://placement-internal.openstack.svc:8778'],
      ['public', 'http://placement-public.openstack.svc:8778'],
    ]);
    const rp = await requestAsAdmin('http://placement-internal.openstack.svc:8778/resource_providers');
    expect(rp.status).toBe(200);
    expect(JSON.parse(rp.body)).toEqual({ resource_providers: [] });
  });
});

type SecretShape = KubeObject & { data?: Record<string, string> };
const ROTATED_AT = 'keystone.openstack.org/rotatedat';

/** Asks the operator for one fernet rotation now (rotatedat in the past) and waits until it rotated. */
async function rotateFernetKeys(): Promise<void> {
  const before = await client.get<SecretShape>(Kinds.Secret, { namespace: ns, name: 'keystone' });
  const past = '2000-01-01T00:00:00Z';
  await client.patch(
    Kinds.Secret,
    { namespace: ns, name: 'keystone' },
    { metadata: { annotations: { [ROTATED_AT]: past } } },
    'merge',
  );
  await until(
    'a fernet rotation',
    async () => {
      const s = await client.get<SecretShape>(Kinds.Secret, { namespace: ns, name: 'keystone' });
      const at = s?.metadata.annotations?.[ROTATED_AT];
      return at && at !== past && s?.data?.['FernetKeys0'] !== before?.data?.['FernetKeys0'] ? s : undefined;
    },
    60_000,
    500,
  );
}

/** Waits until every Keystone pod reads the keys the Secret holds now (kubelet refreshes the mount in place). */
async function keysReachPods(pods: string[]): Promise<void> {
  const s = await client.get<SecretShape>(Kinds.Secret, { namespace: ns, name: 'keystone' });
  const want = Buffer.from(s?.data?.['FernetKeys0'] ?? '', 'base64').toString();
  for (const pod of pods)
    await until(
      `the new keys in ${pod}`,
      async () => {
        const got = await kubectl(['exec', '-n', ns, pod, '--', 'cat', '/etc/keystone/fernet-keys/0']);
        return got.trim() === want.trim() ? true : undefined;
      },
      240_000,
      3000,
    );
}

const podNames = async (selector: string) =>
  (await client.list<PodShape>(Kinds.Pod, { namespace: ns, labelSelector: selector })).items.map((p) => ({
    name: p.metadata.name ?? '',
    restarts: p.status?.containerStatuses?.reduce((n, c) => n + c.restartCount, 0) ?? 0,
  }));

const CA_BUNDLE = 'combined-ca-bundle';

const applySecret = (name: string, data: Record<string, string>, type = 'Opaque') =>
  client.apply(Kinds.Secret, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace: ns },
    type,
    stringData: data,
  } as KubeObject);

/**
 * Pod-level TLS for one service: a test CA and a certificate for its public and internal Service
 * names, the `spec.tls` that names the internal and public certificate Secrets and the CA bundle,
 * and the writers of those Secrets.
 */
async function serviceTls(service: 'keystone' | 'placement') {
  const hosts = [`${service}-public.${ns}.svc`, `${service}-internal.${ns}.svc`];
  const certs = await makeTestCertificates(hosts);
  const certSecrets = [`cert-${service}-internal-svc`, `cert-${service}-public-svc`] as const;
  return {
    hosts,
    certs,
    spec: {
      api: { internal: { secretName: certSecrets[0] }, public: { secretName: certSecrets[1] } },
      caBundleSecretName: CA_BUNDLE,
    },
    writeCaBundle: () => applySecret(CA_BUNDLE, { 'tls-ca-bundle.pem': certs.caPem }),
    writeCertificates: async () => {
      for (const name of certSecrets)
        await applySecret(name, { 'tls.crt': certs.certPem, 'tls.key': certs.keyPem }, 'kubernetes.io/tls');
    },
  };
}

/** The public endpoint the KeystoneAPI publishes in its status. */
const keystonePublicUrl = async () =>
  (
    await client.get<KubeObject & { status?: { apiEndpoints?: Record<string, string> } }>(
      KeystoneAPIKind,
      keystone,
    )
  )?.status?.apiEndpoints?.['public'];

/** Waits until the CR's TLSInputReady condition says exactly `message`. */
const tlsInputSays = (kind: KindRef, ref: { namespace: string; name: string }, message: string) =>
  until(`TLSInputReady: ${message}`, async () => {
    const cr = await client.get<
      KubeObject & { status?: { conditions?: { type: string; message?: string }[] } }
    >(kind, ref);
    const c = cr?.status?.conditions?.find((x) => x.type === 'TLSInputReady');
    return c?.message === message ? true : undefined;
  });

describe('Keystone behaviours on real pods', () => {
  it('a token outlives one fernet rotation and is refused after fernetMaxActiveKeys rotations, with no pod restart', async () => {
    const t0 = Date.now();
    const pods = await podNames(keystonePods);
    const token = (await openstack('token issue -f value -c id')).trim();
    const validate = () =>
      requestAsAdmin('http://keystone-internal.openstack.svc:5000/v3/auth/tokens', {
        'X-Subject-Token': token,
      });
    expect((await validate()).status).toBe(200);
    await rotateFernetKeys();
    await keysReachPods(pods.map((p) => p.name));
    expect((await validate()).status).toBe(200);
    for (let i = 1; i < 5; i++) await rotateFernetKeys();
    await keysReachPods(pods.map((p) => p.name));
    const refused = await validate();
    expect(refused.status).toBe(404);
    expect(refused.body).toContain('Could not recognize Fernet token');
    expect(await podNames(keystonePods)).toEqual(pods.map((p) => ({ ...p, restarts: 0 })));
    timings['fernet rotations'] = `${((Date.now() - t0) / 1000).toFixed(1)}s`;
  });

  it('customServiceConfig debug = true rolls the pods and Keystone logs DEBUG lines; removing it rolls them back without', async () => {
    const t0 = Date.now();
    const logsAfterRoll = async (before: string[]) => {
      const pods = await until(
        'the rolled Keystone pod',
        async () => {
          const ready = await podsReady(client, ns, keystonePods, 1, 5000).catch(() => undefined);
          return ready && !before.includes(ready[0]?.metadata.name ?? '') ? ready : undefined;
        },
        300_000,
      );
      const name = pods[0]?.metadata.name ?? '';
      await openstack('token issue -f value -c id');
      return { name, logs: await kubectl(['logs', '-n', ns, name]) };
    };
    const first = (await podNames(keystonePods)).map((p) => p.name);
    await client.patch(
      KeystoneAPIKind,
      keystone,
      { spec: { customServiceConfig: '[DEFAULT]\ndebug = true' } },
      'merge',
    );
    const debug = await logsAfterRoll(first);
    expect(debug.logs).toMatch(/ DEBUG /);
    await client.patch(KeystoneAPIKind, keystone, { spec: { customServiceConfig: null } }, 'merge');
    const quiet = await logsAfterRoll([...first, debug.name]);
    expect(quiet.logs).not.toMatch(/ DEBUG /);
    expect(quiet.logs).toMatch(/POST \/v3\/auth\/tokens/);
    timings['debug on and off'] = `${((Date.now() - t0) / 1000).toFixed(1)}s`;
  });

  it("a new database password in the input Secret reaches keystone's account and Keystone keeps working", async () => {
    const t0 = Date.now();
    const before = (await podNames(keystonePods)).map((p) => p.name);
    const sql = (password: string) => mariadbAs('keystone', password, 'SELECT 1');
    await sql('demo-keystone-db-password');
    await client.patch(
      Kinds.Secret,
      { namespace: ns, name: 'osp-secret' },
      { stringData: { KeystoneDatabasePassword: 'rotated-keystone-db-password' } },
      'merge',
    );
    await until(
      'the new password on the account',
      async () => ((await sql('rotated-keystone-db-password')).trim() === '1' ? true : undefined),
      180_000,
    );
    await expect(sql('demo-keystone-db-password')).rejects.toThrow(/Access denied/);
    await until(
      'rolled Keystone pods',
      async () => {
        const ready = await podsReady(client, ns, keystonePods, 1, 5000).catch(() => undefined);
        return ready && !before.includes(ready[0]?.metadata.name ?? '') ? ready : undefined;
      },
      300_000,
    );
    await waitForCondition(client, KeystoneAPIKind, keystone, 'Ready', 'True');
    expect((await openstack('token issue -f value -c id')).trim()).toMatch(/^gAAAAA/);
    timings['database password change'] = `${((Date.now() - t0) / 1000).toFixed(1)}s`;
  });

  it('tls: Keystone serves https with the given certificates; a client trusts it with the CA bundle only; off again', async () => {
    const t0 = Date.now();
    const { hosts, certs, spec: tls, writeCaBundle, writeCertificates } = await serviceTls('keystone');
    const before = (await podNames(keystonePods)).map((p) => p.name);
    // The CR first: TLSInputReady names the Secrets it waits for, then recovers when they appear.
    await client.patch(KeystoneAPIKind, keystone, { spec: { tls } }, 'merge');
    await tlsInputSays(KeystoneAPIKind, keystone, 'TLSInput is missing: combined-ca-bundle');
    await writeCaBundle();
    await writeCertificates();
    await until(
      'Keystone rolled to https and Ready',
      async () => {
        const publicUrl = await keystonePublicUrl();
        const ready = await podsReady(client, ns, keystonePods, 1, 5000).catch(() => undefined);
        return publicUrl === 'https://keystone-public.openstack.svc:5000' &&
          ready &&
          !before.includes(ready[0]?.metadata.name ?? '')
          ? true
          : undefined;
      },
      300_000,
    );
    await waitForCondition(client, KeystoneAPIKind, keystone, 'Ready', 'True');
    timings['tls on'] = `${((Date.now() - t0) / 1000).toFixed(1)}s`;
    // The client pod's clouds.yaml is a subPath mount (not refreshed): the URL is given explicitly.
    await inClientPod('printf %s "$1" > /tmp/ca.pem', ['_', certs.caPem]);
    const https = (url: string, cacert: boolean) =>
      openstack(`--os-auth-url ${url} ${cacert ? '--os-cacert /tmp/ca.pem ' : ''}token issue -f value -c id`);
    for (const host of hosts) expect((await https(`https://${host}:5000`, true)).trim()).toMatch(/^gAAAAA/);
    await expect(https('https://keystone-public.openstack.svc:5000', false)).rejects.toThrow(
      /CERTIFICATE_VERIFY_FAILED|certificate verify failed/i,
    );
    // keystone's own catalog entries (bootstrap) follow the endpoints
    const endpoints = JSON.parse(
      await openstack(
        '--os-auth-url https://keystone-public.openstack.svc:5000 --os-cacert /tmp/ca.pem endpoint list --service keystone -f json',
      ),
    ) as { Interface: string; URL: string }[];
    expect(endpoints.map((e) => [e.Interface, e.URL]).sort()).toEqual([
      ['internal', 'https://keystone-internal.openstack.svc:5000'],
      ['public', 'https://keystone-public.openstack.svc:5000'],
    ]);
    // Off again (later tests and the placement registration use http)
    await client.patch(KeystoneAPIKind, keystone, { spec: { tls: null } }, 'merge');
    await until(
      'Keystone back on http',
      async () =>
        (await keystonePublicUrl()) === 'http://keystone-public.openstack.svc:5000' ? true : undefined,
      120_000,
    );
    await waitForCondition(client, KeystoneAPIKind, keystone, 'Ready', 'True', 300_000);
    await until('token over http again', async () =>
      (await openstack('token issue -f value -c id')).trim().startsWith('gAAAAA') ? true : undefined,
    );
    timings['tls on and off'] = `${((Date.now() - t0) / 1000).toFixed(1)}s`;
  });

  it('tls: Placement serves https with the given certificates, Keystone lists https placement endpoints; off again', async () => {
    const t0 = Date.now();
    const { certs, spec: tls, writeCaBundle, writeCertificates } = await serviceTls('placement');
    await writeCaBundle();
    await client.patch(PlacementAPIKind, placement, { spec: { tls } }, 'merge');
    await tlsInputSays(
      PlacementAPIKind,
      placement,
      'TLSInput is missing: cert-placement-internal-svc, cert-placement-public-svc',
    );
    await writeCertificates();
    /** Until Keystone lists placement's two endpoints, both on `scheme`. */
    const placementEndpointsOn = (what: string, scheme: 'http://' | 'https://') =>
      until(
        what,
        async () => {
          const urls = (
            JSON.parse(await openstack('endpoint list --service placement -f json')) as { URL: string }[]
          ).map((e) => e.URL);
          return urls.length === 2 && urls.every((u) => u.startsWith(scheme)) ? true : undefined;
        },
        300_000,
      );
    await placementEndpointsOn('placement endpoints https in Keystone', 'https://');
    await waitForCondition(client, PlacementAPIKind, placement, 'Ready', 'True', 300_000);
    await podsReady(client, ns, 'service=placement', 1);
    timings['placement tls on'] = `${((Date.now() - t0) / 1000).toFixed(1)}s`;
    const get = (cafile: string) =>
      inClientPod(
        'printf %s "$1" > /tmp/placement-ca.pem; python3 -c "import ssl,sys,urllib.request as u; ctx=ssl.create_default_context(cafile=sys.argv[2] or None); print(u.urlopen(sys.argv[1], context=ctx, timeout=30).status)" "$2" "$3"',
        ['_', certs.caPem, 'https://placement-public.openstack.svc:8778/', cafile],
      );
    expect((await get('/tmp/placement-ca.pem')).trim()).toBe('200');
    await expect(get('')).rejects.toThrow(/CERTIFICATE_VERIFY_FAILED|certificate verify failed/i);
    await client.patch(PlacementAPIKind, placement, { spec: { tls: null } }, 'merge');
    await placementEndpointsOn('placement back on http in Keystone', 'http://');
    await waitForCondition(client, PlacementAPIKind, placement, 'Ready', 'True', 300_000);
    timings['placement tls on and off'] = `${((Date.now() - t0) / 1000).toFixed(1)}s`;
  });

  it("networkAttachments: [storage] (the seeds' NAD) gives the Keystone pod an interface in 172.18.0.50-100, listed in status; removing it rolls the pod without", async () => {
    const t0 = Date.now();
    try {
      await storageNetworkUp();
      const attached = await attachStorage(keystone, keystonePods);
      const ip = attached.ips[0]!;
      expectSeedStorageIp(ip);
      // As upstream, the operator names the interface after the NAD (`storage`, not multus' net1);
      // `ip a` in the pod, as the seeds show it.
      const address = await inPod(attached.pod, 'ip', '-4', '-o', 'addr', 'show', 'storage');
      expect(address).toContain(`inet ${ip}/24`);

      const plain = await detachStorage(keystone, keystonePods, attached.pod);
      expect(await kubectl(['exec', '-n', ns, plain, '--', 'ls', '/sys/class/net'])).not.toContain('storage');
    } catch (err) {
      await storageNetworkDown();
      throw err;
    }
    timings['networkAttachments on and off'] = `${((Date.now() - t0) / 1000).toFixed(1)}s`;
  });

  it("networkAttachments: [storage] on the PlacementAPI (the same network, still up): the Placement pod's interface in 172.18.0.50-100, listed in status; removed again", async () => {
    const t0 = Date.now();
    try {
      await storageNetworkUp();
      const placementPods = 'service=placement,!job-name';
      const attached = await attachStorage(placement, placementPods);
      const ip = attached.ips[0]!;
      expectSeedStorageIp(ip);
      // The Placement stand-in has no iproute2: the kernel's view of the interface, read in the pod.
      const address = await inPod(attached.pod, 'python3', '-c', interfaceAddress('storage'));
      expect(address.trim()).toBe(ip);
      await detachStorage(placement, placementPods, attached.pod);
    } finally {
      await storageNetworkDown();
    }
    timings['placement networkAttachments on and off'] = `${((Date.now() - t0) / 1000).toFixed(1)}s`;
  });

  it('replicas 3 → 1 → 0: real pods follow and readyCount with them', async () => {
    const t0 = Date.now();
    for (const replicas of [3, 1, 0]) {
      await client.patch(KeystoneAPIKind, keystone, { spec: { replicas } }, 'merge');
      await podsReady(client, ns, keystonePods, replicas, 300_000);
      await until(
        `readyCount ${replicas}`,
        async () => ((await keystoneApi())?.status?.readyCount === replicas ? true : undefined),
        60_000,
        1000,
      );
      timings[`replicas ${replicas}`] = `${((Date.now() - t0) / 1000).toFixed(1)}s`;
    }
  });

  it('deleting the KeystoneAPI (after the PlacementAPI) leaves no pod, Job or Service of either', async () => {
    await client.delete(PlacementAPIKind, placement);
    await until(
      'PlacementAPI gone',
      async () => ((await client.get(PlacementAPIKind, placement)) ? undefined : true),
      120_000,
    );
    await client.delete(KeystoneAPIKind, keystone);
    await until(
      'KeystoneAPI gone',
      async () => ((await client.get(KeystoneAPIKind, keystone)) ? undefined : true),
      120_000,
    );
    await until(
      'their pods, Jobs and Services gone',
      async () => {
        const pods = (await client.list<PodShape>(Kinds.Pod, { namespace: ns })).items
          .map((p) => p.metadata.name)
          .sort();
        const jobs = (await client.list(Kinds.Job, { namespace: ns })).items;
        const services = (await client.list(Kinds.Service, { namespace: ns })).items.map(
          (s) => s.metadata.name,
        );
        return JSON.stringify(pods) === '["mariadb","openstackclient"]' &&
          jobs.length === 0 &&
          JSON.stringify(services) === '["openstack"]'
          ? true
          : undefined;
      },
      120_000,
    );
  });
});

type Conditioned = KubeObject & { status?: { conditions?: { type: string; status: string }[] } };
const now = () => new Date().toISOString();

/** SQL as MariaDB's root user, in the MariaDB pod (the password is the pod's own environment). */
const rootSql = (sql: string) =>
  inMariadbPod([
    'bash',
    '-c',
    'MYSQL_PWD="$DB_ROOT_PASSWORD" exec mariadb --no-defaults -h 127.0.0.1 -u root -N -e "$1"',
    '_',
    sql,
  ]);

/** Sets `types` True on a mariadb-operator CR's status, as its controllers do when done. */
async function reportReady(kind: KindRef, ref: { namespace: string; name: string }, types: string[]) {
  await client.patch(
    kind,
    ref,
    { status: { conditions: types.map((type) => ({ type, status: 'True', lastTransitionTime: now() })) } },
    'merge',
    { subresource: 'status' },
  );
}

/**
 * What mariadb-operator does for one service's MariaDBDatabase and MariaDBAccount `name`, against
 * the real MariaDB: the schema, then the user the account names with the password of the account's
 * Secret and its grant on the schema its `mariaDBDatabaseName` label names; each CR then reports
 * its Ready conditions.
 */
async function playMariadbOperator(
  name: string,
): Promise<{ user: string; password: string; schema: string }> {
  const ref = { namespace: ns, name };
  const db = await until(`MariaDBDatabase ${name}`, () =>
    client.get<MariaDBDatabase & Conditioned>(ExternalKinds.MariaDBDatabase, ref),
  );
  const schema = db.spec?.name ?? '';
  expect(schema).toMatch(/^[a-z_]+$/);
  await rootSql(`CREATE DATABASE IF NOT EXISTS ${schema} CHARACTER SET utf8 COLLATE utf8_general_ci`);
  await reportReady(ExternalKinds.MariaDBDatabase, ref, ['MariaDBDatabaseReady', 'Ready']);
  const account = await until(`MariaDBAccount ${name} tied to its database`, async () => {
    const a = await client.get<MariaDBAccount & Conditioned>(ExternalKinds.MariaDBAccount, ref);
    return a?.metadata.labels?.['mariaDBDatabaseName'] === name ? a : undefined;
  });
  const user = account.spec?.userName ?? '';
  expect(user).toMatch(new RegExp(`^${name}_[0-9a-f]{4}$`));
  const secret = await until(`Secret ${account.spec?.secret}`, () =>
    client.get<KubeObject & { data?: Record<string, string> }>(Kinds.Secret, {
      namespace: ns,
      name: account.spec?.secret ?? '',
    }),
  );
  const password = Buffer.from(secret.data?.['DatabasePassword'] ?? '', 'base64').toString();
  expect(password).toMatch(/^[0-9a-f]{32}$/);
  await rootSql(
    `CREATE OR REPLACE USER '${user}'@'%' IDENTIFIED BY '${password}'; GRANT ALL PRIVILEGES ON ${schema}.* TO '${user}'@'%'`,
  );
  await reportReady(ExternalKinds.MariaDBAccount, ref, ['MariaDBAccountReady', 'Ready']);
  return { user, password, schema };
}

describe('mariadb-operator mode: a Galera CR whose database is the MariaDB pod', () => {
  it('Keystone and Placement become Ready through MariaDBDatabase/MariaDBAccount; Jobs, pods and tokens for real', async () => {
    const t0 = Date.now();
    await installCrds(client, mariadbCrds());
    // What mariadb-operator would have made: the Galera `openstack`, bootstrapped and Ready, and
    // its Service (the examples' `openstack`, whose endpoints are the MariaDB pod) labelled for it.
    const galera = { namespace: ns, name: 'openstack' };
    await client.apply(ExternalKinds.Galera, {
      apiVersion: 'mariadb.openstack.org/v1beta1',
      kind: 'Galera',
      metadata: galera,
      spec: { containerImage: images.mariadb, replicas: 1, secret: 'osp-secret', storageRequest: '1G' },
    } as KubeObject);
    await client.patch(ExternalKinds.Galera, galera, { status: { bootstrapped: true } }, 'merge', {
      subresource: 'status',
    });
    await reportReady(ExternalKinds.Galera, galera, ['Ready']);
    await client.patch(Kinds.Service, galera, { metadata: { labels: { cr: 'mariadb-openstack' } } }, 'merge');
    // The schemas of the Job-mode blocks above go: the account's user must build its own.
    await rootSql('DROP DATABASE IF EXISTS keystone; DROP DATABASE IF EXISTS placement');

    await apply(seedWithoutImage('10-keystoneapi.yaml'));
    await apply(seedWithoutImage('20-placementapi.yaml'));
    const [ks] = await Promise.all([playMariadbOperator('keystone'), playMariadbOperator('placement')]);
    const cr = await waitForCondition(client, KeystoneAPIKind, keystone, 'Ready', 'True', 300_000);
    timings['mariadb-operator mode: KeystoneAPI Ready'] = `${((Date.now() - t0) / 1000).toFixed(1)}s`;
    const status = cr['status'] as {
      databaseHostname?: string;
      conditions?: { type: string; message?: string }[];
    };
    expect(status.databaseHostname).toBe('openstack.openstack.svc');
    expect(status.conditions?.find((c) => c.type === 'DBReady')?.message).toBe('DB create completed');
    expect(await client.get(Kinds.Job, { namespace: ns, name: 'keystone-db-create' })).toBeUndefined();
    for (const name of ['keystone-db-sync', 'keystone-bootstrap']) {
      const job = await client.get<JobShape>(Kinds.Job, { namespace: ns, name });
      expect(job?.status?.succeeded, name).toBe(1);
    }
    const config = await client.get<KubeObject & { data?: Record<string, string> }>(Kinds.Secret, {
      namespace: ns,
      name: 'keystone-config-data',
    });
    const conf = Buffer.from(config?.data?.['keystone.conf'] ?? '', 'base64').toString();
    expect(conf).toContain(`mysql+pymysql://${ks.user}:`);
    expect(conf).toContain('@openstack.openstack.svc/keystone?');
    // db-sync and bootstrap wrote the schema through the account: its user reads the admin project.
    const asAccount = await mariadbAs(
      ks.user,
      ks.password,
      "SELECT name FROM keystone.project WHERE name = 'admin'",
    );
    expect(asAccount.trim()).toBe('admin');
    const pods = await podsReady(client, ns, keystonePods, 1);
    expect(realNodes).toContain(pods[0]?.spec.nodeName);
    expect((await openstack('token issue -f value -c id')).trim()).toMatch(/^gAAAAA/);

    await waitForCondition(client, PlacementAPIKind, placement, 'Ready', 'True', 300_000);
    timings['mariadb-operator mode: PlacementAPI Ready'] = `${((Date.now() - t0) / 1000).toFixed(1)}s`;
    expect(await client.get(Kinds.Job, { namespace: ns, name: 'placement-db-create' })).toBeUndefined();
    const rp = await requestAsAdmin('http://placement-internal.openstack.svc:8778/resource_providers');
    expect(rp.status).toBe(200);
    expect(JSON.parse(rp.body)).toEqual({ resource_providers: [] });

    // Deleted, each service CR lets go of its MariaDB CRs, which garbage collection then removes.
    await client.delete(PlacementAPIKind, placement);
    await waitForDeletion(client, PlacementAPIKind, placement, { timeoutMs: 120_000 });
    await client.delete(KeystoneAPIKind, keystone);
    await waitForDeletion(client, KeystoneAPIKind, keystone, { timeoutMs: 120_000 });
    for (const ref of mariadbCrs) await waitForDeletion(client, ref.kind, ref, { timeoutMs: 60_000 });
    timings['mariadb-operator mode'] = `${((Date.now() - t0) / 1000).toFixed(1)}s`;
  });
});
