import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { examplesDir } from '@stackops/demo/examples';
import { mariadbPod, openstackClientPod, openstackNamespaceOnRealNode } from '@stackops/demo/openstack-pods';
import { operatorOnRealNodeValues } from '@stackops/demo/real-node';
import {
  keystoneTarget,
  networkAddonsTarget,
  OPENSTACK_NAMESPACE,
  placementTarget,
  SIP_NAMESPACE,
  sipTarget,
} from '@stackops/demo/targets';
import { chartAliases, RELEASE, RELEASE_NAMESPACE } from '@stackops/demo/umbrella';
import { loadImages } from '@stackops/kube-env';
import { Kinds, type KubeObject } from '@stackops/lib-common/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { loadWorkloadImages, until } from '../openstack/support.js';
import {
  adminClient,
  applyExample,
  cleanUp,
  deleteNamespaces,
  expectRunsForReal,
  helm,
  kubectl,
  onFirstNode,
  type PodShape,
  readyPods,
  repoRoot,
  scrapeMetrics,
  scratchFile,
  waitForCondition,
} from '../support.js';
import { inCache, type PreviousRelease, previousRelease, readPin } from './previous-release.js';

/**
 * `helm upgrade` from the previous release (ADR 0038) with every operand running for real:
 * nothing the operators deploy is restarted, replaced or written, unless the pin names it.
 */
const client = adminClient();
const pin = readPin();
const cluster = inject('e2eCluster');
const progress = (line: string) => process.stderr.write(`[upgrade] ${line}\n`);
const timings: Record<string, string> = {};
const since = (t0: number) => `${((Date.now() - t0) / 1000).toFixed(1)}s`;
let prev: PreviousRelease;
let images: Awaited<ReturnType<typeof loadWorkloadImages>>;

const crs = [placementTarget, keystoneTarget, networkAddonsTarget, sipTarget];
// NetworkAddonsConfig's components run in the operator's namespace.
const operandNamespaces = [OPENSTACK_NAMESPACE, SIP_NAMESPACE, RELEASE_NAMESPACE];

beforeAll(async () => {
  let t0 = Date.now();
  prev = await previousRelease(pin, inject('helm'), progress);
  timings['previous release'] = prev.builtSeconds > 0 ? `built in ${prev.builtSeconds}s` : 'cached';
  t0 = Date.now();
  images = await loadWorkloadImages(cluster);
  await loadImages(
    cluster,
    prev.images.map((i) => inCache(pin, i.layout)),
  );
  timings['images loaded'] = since(t0);
  // The openstack tests before this file delete the same namespace: pods applied while it is still
  // terminating would go with it.
  await until(
    `namespace ${OPENSTACK_NAMESPACE} gone or active`,
    async () => {
      const ns = await client.get<KubeObject>(Kinds.Namespace, { name: OPENSTACK_NAMESPACE });
      return ns?.metadata.deletionTimestamp ? undefined : true;
    },
    300_000,
  );
  await openstackNamespaceOnRealNode(client);
  await applyExample('00-openstack-prereqs.yaml', OPENSTACK_NAMESPACE);
  await client.apply(Kinds.Pod, onFirstNode(mariadbPod(images.mariadb)));
  await client.apply(Kinds.Pod, onFirstNode(openstackClientPod(images.openstackclient)));
}, 1_800_000);

afterAll(async () => {
  process.stderr.write(`[upgrade] timings: ${JSON.stringify(timings)}\n`);
  await cleanUp(client, crs, [{ release: RELEASE, namespace: RELEASE_NAMESPACE }]);
  await deleteNamespaces(client, [OPENSTACK_NAMESPACE, SIP_NAMESPACE, RELEASE_NAMESPACE]);
  client.close();
});

/** The umbrella's values: operators on the real node, the stand-in OpenStack images; `tags` pins each operator's image. */
function umbrellaValues(tags?: Record<string, string>): string {
  const values: Record<string, Record<string, unknown>> = {
    sip: { installBareMetalHostCRD: true },
    // A pod per operator, as the previous release ran them (the default is combined, ADR 0044).
    global: { operators: { mode: 'separate' } },
  };
  for (const [operator, alias] of Object.entries(chartAliases))
    values[alias] = {
      ...values[alias],
      ...operatorOnRealNodeValues,
      ...(tags ? { image: { tag: tags[operator] } } : {}),
    };
  values['keystone'] = {
    ...values['keystone'],
    relatedImages: { keystoneAPI: images.keystone, mariadb: images.mariadb },
  };
  values['placement'] = {
    ...values['placement'],
    relatedImages: { placementAPI: images.placement, mariadb: images.mariadb },
  };
  return scratchFile('values.yaml', stringify(values));
}

/** A seed example in the namespace, without `containerImage` (the chart's relatedImages apply). */
function seed(file: string): string {
  const obj = parse(readFileSync(join(examplesDir, file), 'utf8')) as KubeObject & {
    spec: Record<string, unknown>;
  };
  delete obj.spec['containerImage'];
  return scratchFile(
    file,
    stringify({ ...obj, metadata: { ...obj.metadata, namespace: OPENSTACK_NAMESPACE } }),
  );
}

/** A token from Keystone, then an authenticated GET /resource_providers from Placement, from the openstackclient pod. */
async function keystoneAndPlacementAnswer(): Promise<{ token: string; placement: string }> {
  // The pod mounts the clouds ConfigMap keystone-operator writes once Keystone is Ready; kubelet
  // retries that mount with a backoff, so the pod may start well after Keystone is Ready.
  await until(
    'the openstackclient pod Ready',
    async () => {
      const pod = await client.get<PodShape>(Kinds.Pod, {
        namespace: OPENSTACK_NAMESPACE,
        name: 'openstackclient',
      });
      return pod?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')
        ? true
        : undefined;
    },
    300_000,
  );
  const out = await kubectl(
    [
      'exec',
      '-n',
      OPENSTACK_NAMESPACE,
      'openstackclient',
      '--',
      'bash',
      '-c',
      'T=$(openstack token issue -f value -c id) && echo "$T" && python3 -c \'import sys, urllib.request as u; print(u.urlopen(u.Request(sys.argv[1], headers={"X-Auth-Token": sys.argv[2]}), timeout=30).status)\' http://placement-internal.openstack.svc:8778/resource_providers "$T"',
    ],
    120_000,
  );
  const [token = '', placement = ''] = out.trim().split('\n');
  return { token, placement };
}

interface Tracked {
  uid: string;
  /** Pods: restart counts. Others: every write but status (generation, non-status managedFields, and resourceVersion where there is no status). */
  state: string;
}
type Snapshot = Map<string, Tracked>;

const operandKinds =
  'deployments,statefulsets,daemonsets,replicasets,jobs,cronjobs,services,configmaps,secrets,serviceaccounts,roles,rolebindings,poddisruptionbudgets,pods';
const withStatus = new Set([
  'Deployment',
  'StatefulSet',
  'DaemonSet',
  'ReplicaSet',
  'Job',
  'CronJob',
  'Service',
  'PodDisruptionBudget',
]);

type Tracking = KubeObject & {
  metadata: {
    generation?: number;
    managedFields?: { manager: string; operation: string; time?: string; subresource?: string }[];
  };
  type?: string;
};

/**
 * What the operators deployed (and the test's own pods): everything in the operand namespaces
 * except the release's own objects (Helm's), its operator pods, the metrics scraper's account, and the Jobs (with their pods)
 * that a CronJob starts on its schedule (keystone's trust flush at minute 1 of every hour).
 */
async function snapshot(): Promise<Snapshot> {
  const out: Snapshot = new Map();
  for (const ns of operandNamespaces) {
    const { items } = JSON.parse(
      await kubectl(['get', operandKinds, '-n', ns, '-o', 'json', '--show-managed-fields']),
    ) as {
      items: Tracking[];
    };
    const scheduled = new Set(
      items
        .filter((o) => o.kind === 'Job' && o.metadata.ownerReferences?.some((r) => r.kind === 'CronJob'))
        .map((o) => o.metadata.name),
    );
    for (const o of items) {
      const m = o.metadata;
      if (m.managedFields?.some((f) => f.manager === 'helm') || o.type === 'helm.sh/release.v1') continue;
      if (m.labels?.['app.kubernetes.io/instance'] === RELEASE) continue;
      // The ServiceAccount this test scrapes the operators' metrics with.
      if (o.kind === 'ServiceAccount' && m.name === 'e2e-scraper') continue;
      if (scheduled.has(m.name) || scheduled.has(m.labels?.['job-name'])) continue;
      const key = `${o.kind} ${m.namespace}/${m.name}`;
      if (o.kind === 'Pod') {
        const statuses = (o as PodShape).status?.containerStatuses ?? [];
        out.set(key, {
          uid: m.uid ?? '',
          state: JSON.stringify(statuses.map((c) => [c.name, c.restartCount])),
        });
        continue;
      }
      const writes = (m.managedFields ?? [])
        .filter((f) => f.subresource !== 'status')
        .map((f) => `${f.manager}/${f.operation}@${f.time}`);
      out.set(key, {
        uid: m.uid ?? '',
        state: JSON.stringify({
          generation: m.generation,
          writes,
          ...(withStatus.has(o.kind ?? '') ? {} : { resourceVersion: m.resourceVersion }),
        }),
      });
    }
  }
  return out;
}

/** What changed between two snapshots, one line each (objects gone, new, replaced, written, restarted). */
function differences(before: Snapshot, after: Snapshot): string[] {
  const out: string[] = [];
  for (const [key, b] of before) {
    const a = after.get(key);
    if (!a) out.push(`${key} gone`);
    else if (a.uid !== b.uid) out.push(`${key} replaced`);
    else if (a.state !== b.state) out.push(`${key} changed: ${b.state} -> ${a.state}`);
  }
  for (const key of after.keys()) if (!before.has(key)) out.push(`${key} new`);
  return out;
}

/** Every CR's condition True, and each CR's status as it is. */
async function crStatuses(): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const cr of crs) {
    const obj = await waitForCondition(client, cr.kind, cr, cr.doneCondition, 'True', 420_000);
    out[`${cr.kind.kind} ${cr.name}`] = { uid: obj.metadata.uid, status: obj['status'] };
  }
  return out;
}

/** The umbrella's four operator pods Ready, never restarted, each running the image given (name and config digest). */
async function operatorsRunning(
  expected: readonly { operator: string; name: string; configDigest: string }[],
): Promise<PodShape[]> {
  const pods = await readyPods(client, RELEASE_NAMESPACE, RELEASE, 4, 240_000);
  for (const image of expected) {
    const alias = chartAliases[image.operator as keyof typeof chartAliases];
    const pod = pods.find((p) => p.metadata.labels?.['app.kubernetes.io/name'] === alias);
    const status = pod?.status?.containerStatuses?.[0];
    expect([pod?.spec.containers[0]?.image, status?.imageID, status?.restartCount], alias).toEqual([
      image.name,
      image.configDigest,
      0,
    ]);
  }
  return pods;
}

const controllers: Record<string, string> = {
  keystone: 'keystoneapi',
  placement: 'placementapi',
  'network-addons': 'networkaddonsconfig',
  sip: 'sipcluster',
};

/**
 * Waits until each operator, started anew, has reconciled its CR (its own reconcile counter, from
 * its metrics): a reconcile that changes nothing writes nothing, so the objects alone cannot tell.
 */
async function reconciledOnce(pods: PodShape[]): Promise<void> {
  for (const [operator, alias] of Object.entries(chartAliases)) {
    const pod = pods.find((p) => p.metadata.labels?.['app.kubernetes.io/name'] === alias);
    const counter = new RegExp(
      `^controller_runtime_reconcile_total\\{controller="${controllers[operator]}",result="(success|requeue_after)"\\} (\\d+)`,
      'gm',
    );
    await until(`${alias} reconciled its CR`, async () => {
      const { body } = await scrapeMetrics(pod?.status?.podIP, RELEASE_NAMESPACE, RELEASE);
      const n = [...body.matchAll(counter)].reduce((sum, m) => sum + Number(m[2]), 0);
      return n > 0 ? n : undefined;
    });
  }
}

let before: Snapshot;
let statusBefore: Record<string, unknown>;
/**
 * The differences the pin does not declare: a declared Deployment, StatefulSet or DaemonSet may
 * roll (its ReplicaSets and pods come and go); nothing else may change.
 */
function undeclared(diff: string[]): string[] {
  const declared = pin.expectedRollouts.map((r) => r.object);
  const rolling = declared
    .filter((o) => /^(Deployment|StatefulSet|DaemonSet) /.test(o))
    .map((o) => `${o.split(' ')[1]}-`);
  return diff.filter((d) => {
    const [kind = '', ref = ''] = d.split(' ');
    if (declared.includes(`${kind} ${ref}`)) return false;
    return !(['Pod', 'ReplicaSet'].includes(kind) && rolling.some((prefix) => ref.startsWith(prefix)));
  });
}

/**
 * Every CR Ready with its status as before (whole, when no rollout is declared: a rollout moves
 * hashes and counts), nothing undeclared changed, each declared rollout done (`upgraded`: the
 * rollback may find it already rolled back). Declared rollouts need their changeset.
 */
async function expectKept(upgraded: boolean): Promise<void> {
  const statuses = await crStatuses();
  if (pin.expectedRollouts.length === 0) expect(statuses).toEqual(statusBefore);
  const diff = differences(before, await snapshot());
  expect(undeclared(diff)).toEqual([]);
  for (const r of pin.expectedRollouts) {
    expect(
      existsSync(join(repoRoot, '.changeset', r.changeset)),
      `${r.object}: changeset ${r.changeset}`,
    ).toBe(true);
    if (upgraded)
      expect(
        diff.some((d) => d.startsWith(`${r.object} `)),
        `${r.object} rolled out`,
      ).toBe(true);
  }
}

const crdUids = new Map<string, string>();

describe('helm upgrade from the previous release, every operand running for real', () => {
  it('installs the previous release and brings the seed CRs, the SIPCluster and the NetworkAddonsConfig to Ready', async () => {
    const t0 = Date.now();
    const tags = Object.fromEntries(prev.images.map((i) => [i.operator, i.tag]));
    await helm([
      'install',
      RELEASE,
      inCache(pin, prev.chart),
      '-n',
      RELEASE_NAMESPACE,
      '--create-namespace',
      '-f',
      umbrellaValues(tags),
      '--wait',
      '--timeout',
      '4m',
    ]);
    await operatorsRunning(prev.images);
    await kubectl(['apply', '--server-side', '-f', seed('10-keystoneapi.yaml')]);
    await kubectl(['apply', '--server-side', '-f', seed('20-placementapi.yaml')]);
    await applyExample('30-networkaddonsconfig.yaml');
    await applyExample('40-sipcluster.yaml');
    statusBefore = await crStatuses();
    timings['previous release installed, CRs Ready'] = since(t0);
    const answer = await keystoneAndPlacementAnswer();
    expect(answer.token).toMatch(/^gAAAAA/);
    expect(answer.placement).toBe('200');
    for (const crd of JSON.parse(await kubectl(['get', 'crd', '-o', 'json'])).items as KubeObject[])
      crdUids.set(crd.metadata.name ?? '', crd.metadata.uid ?? '');
    before = await snapshot();
    // What the snapshot must cover: each operator's workloads, Keystone's Jobs and their pods.
    for (const key of [
      'Deployment openstack/keystone',
      'Deployment openstack/placement',
      'Job openstack/keystone-db-sync',
      'Job openstack/placement-db-sync',
      'DaemonSet stackops-system/multus',
      'Deployment sip-demo/loadbalancer-controlplane-tenant-a',
      'Secret openstack/keystone',
    ])
      expect([...before.keys()], key).toContain(key);
    expect(
      [...before.keys()].filter((k) => k.startsWith('Pod openstack/keystone-')).length,
    ).toBeGreaterThanOrEqual(4);
  });

  it('keeps Keystone issuing tokens and Placement answering while the operators are scaled to 0 for 60 s', async () => {
    await kubectl([
      'scale',
      'deployment',
      '-n',
      RELEASE_NAMESPACE,
      '-l',
      `app.kubernetes.io/instance=${RELEASE}`,
      '--replicas=0',
    ]);
    await until('no operator pod', async () => {
      const pods = await client.list(Kinds.Pod, {
        namespace: RELEASE_NAMESPACE,
        labelSelector: `app.kubernetes.io/instance=${RELEASE}`,
      });
      return pods.items.length === 0 ? true : undefined;
    });
    // Probes back to back (one takes 5-30 s, the openstack client starting under load), the last
    // one begun after 60 s of downtime.
    const t0 = Date.now();
    let answers = 0;
    let lastAt = 0;
    while (lastAt < 60_000) {
      lastAt = Date.now() - t0;
      const answer = await keystoneAndPlacementAnswer();
      expect(answer.token, `after ${lastAt} ms`).toMatch(/^gAAAAA/);
      expect(answer.placement, `after ${lastAt} ms`).toBe('200');
      answers++;
    }
    timings['answers while the operators were down'] = `${answers} in ${since(t0)}`;
    expect(differences(before, await snapshot())).toEqual([]);
  });

  it('upgrades in place: CRDs applied, helm upgrade to this commit, no operand restarted, replaced or written', async () => {
    const t0 = Date.now();
    // Helm never upgrades a chart's crds/: the documented step before `helm upgrade`.
    for (const chart of Object.values(chartAliases).map(
      (a) => `${a === 'networkaddons' ? 'network-addons' : a}-operator`,
    ))
      await kubectl([
        'apply',
        '--server-side',
        '--force-conflicts',
        '-f',
        join(repoRoot, 'charts', chart, 'crds'),
      ]);
    await helm(['dependency', 'build', join(repoRoot, 'charts/stackops'), '--skip-refresh']);
    await helm([
      'upgrade',
      RELEASE,
      join(repoRoot, 'charts/stackops'),
      '-n',
      RELEASE_NAMESPACE,
      '-f',
      umbrellaValues(),
      '--wait',
      '--timeout',
      '4m',
    ]);
    const pods = await operatorsRunning(inject('images').filter((i) => i.operator in chartAliases));
    for (const [operator, alias] of Object.entries(chartAliases)) {
      const pod = pods.find((p) => p.metadata.labels?.['app.kubernetes.io/name'] === alias);
      expect(expectRunsForReal(pod!, operator)).toEqual([]);
    }
    await reconciledOnce(pods);
    timings['upgraded, operators running'] = since(t0);
    await expectKept(true);
    for (const crd of JSON.parse(await kubectl(['get', 'crd', '-o', 'json'])).items as KubeObject[])
      if (crdUids.has(crd.metadata.name ?? ''))
        expect(crd.metadata.uid, crd.metadata.name).toBe(crdUids.get(crd.metadata.name ?? ''));
    const answer = await keystoneAndPlacementAnswer();
    expect(answer.placement).toBe('200');
  });

  it('helm rollback returns to the previous release, again leaving every operand alone', async () => {
    await helm(['rollback', RELEASE, '1', '-n', RELEASE_NAMESPACE, '--wait', '--timeout', '4m']);
    await reconciledOnce(await operatorsRunning(prev.images));
    await expectKept(false);
    const answer = await keystoneAndPlacementAnswer();
    expect(answer.placement).toBe('200');
    // The comparison sees a write that changes no pod: one annotation on the keystone-internal
    // Service (not a declared rollout, so the check must report it).
    await kubectl([
      'annotate',
      'service',
      'keystone-internal',
      '-n',
      OPENSTACK_NAMESPACE,
      'e2e.stackops.dev/probe=1',
    ]);
    expect(undeclared(differences(before, await snapshot())).map((d) => d.split(':')[0])).toEqual([
      'Service openstack/keystone-internal changed',
    ]);
  });
});
