import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ControlPlane } from '@stackops/kube-env';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../src/source.js';
import type { WorkloadImage, WorkloadImages } from '../../src/workloads/index.js';
import { controlPlane, Kubectl, type OperatorProcess, relay, startOperator } from './support/cluster.js';
import { fromImage, workloadImages } from './support/images.js';
import { type PodSpec, podContainers } from './support/pods.js';
import { Node, type Process } from './support/sandbox.js';

/**
 * What keystone-operator and placement-operator render, run by the real software of the stand-in
 * images: the operators run as processes against a local control plane (kwok only pretends to run
 * their pods), and this test plays kubelet for the pods that matter — the db-create, db-sync and
 * bootstrap Jobs, the API Deployments — in chroot sandboxes sharing one loopback-only network
 * namespace where the Services' names resolve to 127.0.0.1 (a stand-in for cluster DNS).
 *
 * Everything runs as rendered: an operator change that breaks the TCIB images' contract (privilege
 * escalation for kolla_start's sudo, httpd's files and directories, a key in a config file) fails here.
 */

type Json = Record<string, unknown>;

const ns = `wl-${Date.now().toString(36)}`;
const svc = (name: string) => `${name}.${ns}.svc`;
const passwords = {
  AdminPassword: 'admin-Pw1',
  DbRootPassword: "root'Pw2",
  KeystoneDatabasePassword: 'ks-db-Pw3',
  PlacementPassword: 'placement-Pw4',
  PlacementDatabasePassword: 'pl-db-Pw5',
};

let images: WorkloadImages;
let byName: Record<string, WorkloadImage>;
let cp: ControlPlane;
let kubectl: Kubectl;
let node: Node;
let keystoneUrl: Awaited<ReturnType<typeof relay>>;
const operators: OperatorProcess[] = [];
const running: Process[] = [];
const scratch = mkdtempSync(join(tmpdir(), 'workload-operators-'));

const objects = {
  secret: (name: string) => secrets.get(name) ?? fail(`Secret ${name} was not loaded`),
  configMap: (name: string) => configMaps.get(name) ?? fail(`ConfigMap ${name} was not loaded`),
};
const secrets = new Map<string, Record<string, string>>();
const configMaps = new Map<string, Record<string, string>>();
function fail(message: string): never {
  throw new Error(message);
}

/** Loads the Secrets and ConfigMaps a pod spec references, as kubelet would fetch them. */
async function loadReferences(pod: PodSpec): Promise<void> {
  const names = (kind: 'secret' | 'configmap') => {
    const found = new Set<string>();
    for (const v of pod.volumes ?? []) {
      if (kind === 'secret' && v.secret) found.add(v.secret.secretName);
      if (kind === 'configmap' && v.configMap) found.add(v.configMap.name);
    }
    for (const c of pod.containers) {
      for (const e of c.env ?? []) {
        if (kind === 'secret' && e.valueFrom?.secretKeyRef) found.add(e.valueFrom.secretKeyRef.name);
        if (kind === 'configmap' && e.valueFrom?.configMapKeyRef) found.add(e.valueFrom.configMapKeyRef.name);
      }
    }
    return found;
  };
  for (const name of names('secret')) secrets.set(name, await kubectl.data('secret', name, ns));
  for (const name of names('configmap')) configMaps.set(name, await kubectl.data('configmap', name, ns));
}

const podOf = (o: Json, path: string[]): PodSpec => {
  let at: unknown = o;
  for (const p of path) at = (at as Json)[p];
  return at as PodSpec;
};
const jobPod = (job: Json) => podOf(job, ['spec', 'template', 'spec']);

/** The pod's containers, ready to run (volumes materialised under a folder of their own). */
async function containersOf(pod: PodSpec, podName: string) {
  await loadReferences(pod);
  const dir = join(scratch, podName);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  return { dir, containers: podContainers(pod, objects, byName, dir) };
}

/** Runs a Job's pod (one container) to completion in the sandbox; resolves with its output. */
async function runJob(name: string): Promise<string> {
  const job = await kubectl.waitFor('job', name, ns);
  const { containers } = await containersOf(jobPod(job), name);
  expect(containers).toHaveLength(1);
  return node.runToCompletion(containers[0]!);
}

/**
 * An openstackclient pod as openstack-operator's would be: the operator's `openstack-config`
 * (clouds.yaml) and `openstack-config-secret` (secure.yaml) in ~/.config/openstack, OS_CLOUD=default.
 */
function openstackclientPod(name: string, script: string): PodSpec {
  return {
    containers: [
      {
        name,
        image: images.images.openstackclient.name,
        args: ['/bin/bash', '-ec', script],
        env: [{ name: 'OS_CLOUD', value: 'default' }],
        volumeMounts: [
          {
            name: 'config',
            mountPath: '/home/cloud-admin/.config/openstack/clouds.yaml',
            subPath: 'clouds.yaml',
          },
          {
            name: 'secret',
            mountPath: '/home/cloud-admin/.config/openstack/secure.yaml',
            subPath: 'secure.yaml',
          },
        ],
      },
    ],
    volumes: [
      { name: 'config', configMap: { name: 'openstack-config' } },
      { name: 'secret', secret: { secretName: 'openstack-config-secret' } },
    ],
  };
}

/** Waits for `done`, failing early (with its output) when `p` exits. */
async function until(done: () => boolean, timeoutMs: number, p: Process): Promise<void> {
  let exited = false;
  void p.exited.then(() => {
    exited = true;
  });
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (exited) throw new Error(`${p.name} exited:\n${p.output()}`);
    if (Date.now() > deadline)
      throw new Error(`${p.name}: not ready within ${timeoutMs / 1000}s:\n${p.output()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function waitHttp(url: string, expectStatus: number, timeoutMs: number, p?: Process) {
  const deadline = Date.now() + timeoutMs;
  let last = { status: 0, body: '' };
  let exited = false;
  void p?.exited.then(() => {
    exited = true;
  });
  while (Date.now() < deadline) {
    last = await node.http(url, { timeoutSeconds: 30 });
    if (last.status === expectStatus) return last;
    if (p && exited) throw new Error(`${p.name} exited:\n${p.output()}`);
    await new Promise((r) => setTimeout(r, 1000));
  }
  throw new Error(
    `${url} answered ${last.status} (wanted ${expectStatus}) ${last.body}\n${p?.output() ?? ''}`,
  );
}

beforeAll(async () => {
  images = await workloadImages();
  byName = Object.fromEntries(Object.values(images.images).map((i) => [i.name, i]));
  cp = await controlPlane();
  kubectl = new Kubectl(cp);
  await kubectl.run(['create', 'namespace', ns]);
  const root = repoRoot();
  await kubectl.run([
    'apply',
    '--server-side',
    '-f',
    join(root, 'charts/keystone-operator/crds'),
    '-f',
    join(root, 'charts/placement-operator/crds'),
  ]);
  await kubectl.run([
    'wait',
    '--for=condition=Established',
    '--timeout=60s',
    'crd/keystoneapis.keystone.openstack.org',
    'crd/placementapis.placement.openstack.org',
  ]);

  node = await Node.start(
    ['openstack', 'keystone-internal', 'keystone-public', 'placement-internal', 'placement-public'].map(svc),
  );
  keystoneUrl = await relay(node.netns, 5000, node.dir);
  const related = {
    RELATED_IMAGE_KEYSTONE_API_IMAGE_URL_DEFAULT: images.images.keystone.name,
    RELATED_IMAGE_PLACEMENT_API_IMAGE_URL_DEFAULT: images.images.placement.name,
    RELATED_IMAGE_MARIADB_IMAGE_URL_DEFAULT: images.images.mariadb.name,
  };
  operators.push(
    await startOperator(
      'keystone',
      cp,
      ns,
      { ...related, KEYSTONE_AUTH_URL_OVERRIDE: keystoneUrl.url },
      scratch,
    ),
    await startOperator('placement', cp, ns, related, scratch),
  );

  // The database the services' databaseInstance names: a MariaDB "pod" behind Service `openstack`.
  // (an emptyDir: world-writable)
  mkdirSync(join(scratch, 'mysql'), { recursive: true });
  chmodSync(join(scratch, 'mysql'), 0o777);
  const mariadb = node.run(
    fromImage(images.images.mariadb, {
      name: 'openstack-mariadb',
      env: { DB_ROOT_PASSWORD: passwords.DbRootPassword },
      mounts: [{ source: join(scratch, 'mysql'), target: '/var/lib/mysql' }],
    }),
  );
  running.push(mariadb);
  await until(() => mariadb.output().includes('ready for connections'), 120_000, mariadb);
  await kubectl.apply([
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'osp-secret', namespace: ns },
      stringData: passwords,
    },
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'openstack', namespace: ns },
      spec: { ports: [{ name: 'mysql', port: 3306 }] },
    },
    {
      // The seed's KeystoneAPI without containerImage (the operator's default image is the point),
      // one WSGI process per vhost to keep a cold start short on two cores.
      apiVersion: 'keystone.openstack.org/v1beta1',
      kind: 'KeystoneAPI',
      metadata: { name: 'keystone', namespace: ns },
      spec: { replicas: 1, secret: 'osp-secret', httpdCustomization: { processNumber: 1 } },
    },
  ]);
}, 1_800_000);

afterAll(async () => {
  for (const p of running) await p.stop();
  for (const o of operators) await o.stop();
  await keystoneUrl?.close();
  await node?.close();
  if (cp) {
    if (process.env.KUBE_ENV_REUSE === '1')
      await kubectl.run(['delete', 'namespace', ns, '--wait=false']).catch(() => '');
    else await cp.stop({ purge: true });
  }
  rmSync(scratch, { recursive: true, force: true });
}, 120_000);

describe('keystone-operator output on the stand-in keystone and mariadb images', () => {
  it('names the stand-in images through RELATED_IMAGE_* (Deployment, Jobs, db-create)', async () => {
    const deployment = await kubectl.waitFor('deployment', 'keystone', ns);
    expect(podOf(deployment, ['spec', 'template', 'spec']).containers[0]!.image).toBe(
      images.images.keystone.name,
    );
    const dbCreate = await kubectl.waitFor('job', 'keystone-db-create', ns);
    expect(jobPod(dbCreate).containers[0]!.image).toBe(images.images.mariadb.name);
  }, 240_000);

  it('keystone-db-create creates the keystone database and account in MariaDB', async () => {
    expect(await runJob('keystone-db-create')).toContain('database and account are in place');
  }, 240_000);

  it('keystone-db-sync: keystone-manage db_sync with the rendered keystone.conf and my.cnf creates the schema', async () => {
    const out = await runJob('keystone-db-sync');
    expect(out).toMatch(/Running upgrade .* -> .*/);
  }, 300_000);

  it('keystone-bootstrap: kolla_set_configs then keystone-manage bootstrap creates admin and the identity endpoints', async () => {
    const out = await runJob('keystone-bootstrap');
    expect(out).toContain('Created user admin');
    expect(out).toContain(`Created public endpoint http://${svc('keystone-public')}:5000`);
    expect(out).toContain(`Created internal endpoint http://${svc('keystone-internal')}:5000`);
  }, 300_000);

  const apiPod = async () => {
    const deployment = await kubectl.waitFor('deployment', 'keystone', ns);
    const pod = podOf(deployment, ['spec', 'template', 'spec']);
    return { pod, ...(await containersOf(pod, `keystone-api-${Date.now()}`)) };
  };

  it('keystone-api as rendered serves its probe path on its port (kolla_start through sudo, ssl.conf replaced, /etc/httpd/run for keystone)', async () => {
    const { pod, containers } = await apiPod();
    expect(containers[0]!.noNewPrivileges).toBe(false);
    const api = node.run(containers[0]!);
    running.push(api);
    const probe = (
      pod.containers[0] as unknown as { readinessProbe: { httpGet: { path: string; port: number } } }
    ).readinessProbe.httpGet;
    const r = await waitHttp(`http://127.0.0.1:${probe.port}${probe.path}`, 200, 180_000, api);
    expect(JSON.parse(r.body)).toMatchObject({ version: { id: 'v3.14', status: 'stable' } });
    expect(api.output()).toContain(
      'copying /var/lib/config-data/default/ssl.conf to /etc/httpd/conf.d/ssl.conf',
    );
  }, 240_000);

  it("issues a token and lists keystone's endpoints from openstackclient with the operator's openstack-config and openstack-config-secret", async () => {
    await kubectl.waitFor('configmap', 'openstack-config', ns);
    configMaps.set('openstack-config', await kubectl.data('configmap', 'openstack-config', ns));
    secrets.set('openstack-config-secret', await kubectl.data('secret', 'openstack-config-secret', ns));
    const pod = openstackclientPod(
      'openstackclient',
      'openstack token issue -f value -c expires; openstack endpoint list -f value -c "Service Name" -c Interface -c URL',
    );
    const { containers } = await containersOf(pod, 'openstackclient');
    const out = await node.runToCompletion(containers[0]!);
    expect(out).toMatch(/^\d{4}-\d\d-\d\dT/m);
    expect(out).toContain(`keystone public http://${svc('keystone-public')}:5000`);
    expect(out).toContain(`keystone internal http://${svc('keystone-internal')}:5000`);
  }, 240_000);
});

describe('placement-operator output on the stand-in placement image', () => {
  beforeAll(async () => {
    await kubectl.apply([
      {
        apiVersion: 'placement.openstack.org/v1beta1',
        kind: 'PlacementAPI',
        metadata: { name: 'placement', namespace: ns },
        spec: { databaseInstance: 'openstack', secret: 'osp-secret' },
      },
    ]);
  });

  it('placement-db-create creates the placement database and account', async () => {
    expect(await runJob('placement-db-create')).toContain('database and account are in place');
  }, 300_000);

  it('placement-db-sync: kolla_start (through sudo) then placement-manage db sync creates the schema', async () => {
    const job = await kubectl.waitFor('job', 'placement-db-sync', ns);
    const { containers } = await containersOf(jobPod(job), 'placement-db-sync');
    expect(containers[0]!.noNewPrivileges).toBe(false);
    const out = await node.runToCompletion(containers[0]!);
    expect(out).toContain("running 'placement-manage db sync'");
  }, 300_000);

  it('placement-api serves / on 8778 as rendered the -log container tails its log', async () => {
    const deployment = await kubectl.waitFor('deployment', 'placement', ns);
    const pod = podOf(deployment, ['spec', 'template', 'spec']);
    const { containers } = await containersOf(pod, 'placement-api');
    expect(containers.map((c) => c.name)).toEqual(['placement-log', 'placement-api']);
    const [log, api] = containers.map((c) => node.run(c));
    running.push(log!, api!);
    const r = await waitHttp('http://127.0.0.1:8778/', 200, 180_000, api);
    expect(JSON.parse(r.body)).toMatchObject({ versions: [{ id: 'v1.0', status: 'CURRENT' }] });
    for (let i = 0; i < 50 && !log!.output().includes('"GET /"'); i++)
      await new Promise((r) => setTimeout(r, 200));
    expect(log!.output()).toContain('"GET /"');
  }, 240_000);

  it('is registered in keystone by keystone-operator (KeystoneService, KeystoneEndpoint) and answers an authenticated GET /resource_providers', async () => {
    const ready = (o: Json) =>
      (
        (o['status'] as Json | undefined)?.['conditions'] as { type: string; status: string }[] | undefined
      )?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
    await kubectl.waitFor('keystoneservice', 'placement', ns, ready, 240_000);
    await kubectl.waitFor('keystoneendpoint', 'placement', ns, ready, 240_000);
    const pod = openstackclientPod(
      'openstackclient-placement',
      'openstack endpoint list --service placement -f value -c Interface -c URL; openstack token issue -f value -c id',
    );
    const { containers } = await containersOf(pod, 'openstackclient-placement');
    const out = await node.runToCompletion(containers[0]!);
    expect(out).toContain(`public http://${svc('placement-public')}:8778`);
    expect(out).toContain(`internal http://${svc('placement-internal')}:8778`);
    const token = out.trim().split('\n').at(-1)!;
    const r = await node.http(`http://${svc('placement-public')}:8778/resource_providers`, {
      headers: { 'X-Auth-Token': token, 'OpenStack-API-Version': 'placement latest' },
    });
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body)).toEqual({ resource_providers: [] });
  }, 420_000);
});
