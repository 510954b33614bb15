import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { buildNetworkImages, type NetworkImageName } from '@stackops/images/network';
import { realNodeLabels } from '@stackops/kube-env';
import type { KubeClient, KubeObject } from '@stackops/lib-common/client';
import { parseAllDocuments, stringify } from 'yaml';
import { applyFile } from './examples.js';
import { run } from './exec.js';
import { realNodeTaint } from './real-node.js';
import { KeystoneAPIKind, OPENSTACK_NAMESPACE } from './targets.js';

const execFileP = promisify(execFile);

/**
 * The network add-ons that run for real on the real nodes: the components network-addons-operator
 * deploys whose images are built here (tools/images network images), and whereabouts, the IPAM
 * plugin the seeds' NetworkAttachmentDefinition names (not a component: installed as a user would).
 */
const networkImages = [
  'multus',
  'linuxBridge',
  'bridgeMarker',
  'ovsCni',
  'whereabouts',
] as const satisfies readonly NetworkImageName[];

/**
 * The components of the example NetworkAddonsConfig whose DaemonSets run on the real nodes (`ovs`
 * on the Open vSwitch kube-env runs on each of them, `ovs: true`).
 */
const realComponents = ['multus', 'linuxBridge', 'ovs'] as const;

/** Built (or from the cache): image name per network image, and the archives to load into every node. */
export async function buildNetworkAddonImages(): Promise<{
  names: Record<(typeof networkImages)[number], string>;
  archives: string[];
}> {
  const built = await buildNetworkImages({ only: networkImages });
  const names = {} as Record<(typeof networkImages)[number], string>;
  const archives: string[] = [];
  for (const n of networkImages) {
    const image = built[n];
    if (!image) throw new Error(`no ${n} image was built`);
    names[n] = image.name;
    archives.push(image.built.archive);
  }
  return { names, archives };
}

/** network-addons-operator's relatedImages (its chart values): the component images built here. */
export const networkAddonsRelatedImages = (names: Record<(typeof networkImages)[number], string>) => ({
  multus: names.multus,
  linuxBridge: names.linuxBridge,
  linuxBridgeMarker: names.bridgeMarker,
  ovsCni: names.ovsCni,
});

/**
 * The example NetworkAddonsConfig as the real nodes can run it: the components whose images are
 * built here, their DaemonSets on the real nodes (placementConfiguration.workloads: the real nodes'
 * labels, their taint tolerated). The other components' images cannot be built on this machine
 * (their Go modules are refused, README), so they are left out rather than scheduled where they
 * could only fail to pull; `imagePullPolicy: Always` goes too, since the nodes have no registry to
 * pull from: the images are loaded into their containerd.
 */
export function realNodeNetworkAddonsConfig(
  obj: KubeObject & { spec?: Record<string, unknown> },
): KubeObject {
  const spec = obj.spec ?? {};
  const kept = Object.fromEntries(realComponents.filter((c) => c in spec).map((c) => [c, spec[c]]));
  return {
    ...obj,
    spec: {
      ...kept,
      placementConfiguration: {
        workloads: {
          nodeSelector: { ...realNodeLabels },
          tolerations: [{ operator: 'Equal', ...realNodeTaint }],
        },
      },
    },
  };
}

/** The example KeystoneAPI with the seeds' `networkAttachments: [storage]`. */
export function withStorageAttachment(obj: KubeObject & { spec?: Record<string, unknown> }): KubeObject {
  return { ...obj, spec: { ...obj.spec, networkAttachments: [STORAGE_NAD] } };
}

const STORAGE_NAD = 'storage';
const repoRoot = resolve(import.meta.dirname, '../../..');
/** The seeds' NetworkAttachmentDefinition, as written (macvlan on enp7s0.21, whereabouts 172.18.0.50-100). */
const seedNadFile = join(
  repoRoot,
  'operators/keystone/test/fixtures/seed/network-attachment-definition.yaml',
);
const WHEREABOUTS_VERSION = 'v0.9.2';
export const WHEREABOUTS_NAMESPACE = 'kube-system';

/** whereabouts' Go module (the module cache): its CRDs and its install manifest come from there. */
async function whereaboutsModuleDir(): Promise<string> {
  const { stdout } = await execFileP(
    'go',
    ['mod', 'download', '-json', `github.com/k8snetworkplumbingwg/whereabouts@${WHEREABOUTS_VERSION}`],
    { cwd: tmpdir(), env: { ...process.env, GOTOOLCHAIN: 'local', GOFLAGS: '-mod=mod', GOWORK: 'off' } },
  );
  return (JSON.parse(stdout) as { Dir: string }).Dir;
}

interface ContainerShape {
  image?: string;
  command?: string[];
  args?: string[];
}
type DaemonSetShape = KubeObject & {
  spec: { template: { spec: { nodeSelector?: Record<string, string>; containers: ContainerShape[] } } };
};

/**
 * whereabouts' own install manifest (doc/crds: CRDs, RBAC, DaemonSet in kube-system) with two
 * changes: the image built here, whose entrypoint installs the plugin and its kubeconfig on the node
 * (upstream's command also starts the IP reconciler, which that image leaves out), and the real
 * nodes' selector, since kwok's nodes have no CNI to install into. Upstream already tolerates every
 * NoSchedule taint, the real nodes' included.
 */
async function whereaboutsManifests(image: string): Promise<string> {
  const dir = join(await whereaboutsModuleDir(), 'doc', 'crds');
  const files = readdirSync(dir).filter(
    (f) => f.startsWith('whereabouts.cni.cncf.io_') || f === 'daemonset-install.yaml',
  );
  const docs = files.flatMap((f) =>
    // YAML 1.1, as kubectl reads it: upstream's `defaultMode: 0744` is octal there.
    parseAllDocuments(readFileSync(join(dir, f), 'utf8'), { version: '1.1' }).flatMap((d) => {
      const obj = d.toJS() as KubeObject | null;
      if (!obj) return [];
      if (obj.kind === 'DaemonSet') {
        const pod = (obj as DaemonSetShape).spec.template.spec;
        pod.nodeSelector = { ...realNodeLabels };
        pod.containers = pod.containers.map(({ command: _c, args: _a, ...c }) => ({ ...c, image }));
      }
      return [obj];
    }),
  );
  return docs.map((o) => stringify(o)).join('---\n');
}

/** `kubectl apply --server-side` of a YAML stream. */
async function applyYaml(kubectl: string, kubeconfig: string, yaml: string): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'stackops-demo-network-'));
  try {
    const file = join(dir, 'objects.yaml');
    writeFileSync(file, yaml);
    await applyFile(kubectl, kubeconfig, file);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * whereabouts on every real node (its DaemonSet rolled out) and the seeds' NAD `storage` in
 * namespace `openstack`: what a KeystoneAPI's `networkAttachments: [storage]` needs besides Multus.
 */
export async function installStorageNetwork(kubectl: string, kubeconfig: string, whereaboutsImage: string) {
  await applyYaml(kubectl, kubeconfig, await whereaboutsManifests(whereaboutsImage));
  await run(kubectl, [
    '--kubeconfig',
    kubeconfig,
    '-n',
    WHEREABOUTS_NAMESPACE,
    'rollout',
    'status',
    'daemonset/whereabouts',
    '--timeout=180s',
  ]);
  const nad = parseAllDocuments(readFileSync(seedNadFile, 'utf8'))[0]?.toJS() as KubeObject;
  await applyYaml(
    kubectl,
    kubeconfig,
    stringify({ ...nad, metadata: { ...nad.metadata, namespace: OPENSTACK_NAMESPACE } }),
  );
}

/** Selects what network-addons-operator deployed (every object it renders carries it). */
export const networkAddonPodsSelector = 'app.kubernetes.io/managed-by=cnao-operator';
export const whereaboutsPodsSelector = 'app=whereabouts';

/** An address of the seeds' range: 172.18.0.50-100. */
const inStorageRange = (ip: string): boolean => {
  const last = Number(/^172\.18\.0\.(\d+)$/.exec(ip)?.[1]);
  return last >= 50 && last <= 100;
};

/**
 * The KeystoneAPI's attachment as the seeds' README shows it: `ip a` in its API pod, and its
 * `status.networkAttachments`. Lines to print, and whether the pod has an address of the range on
 * `storage` that the status lists.
 */
export async function keystoneStorageAttachment(
  client: KubeClient,
  kubectl: string,
  kubeconfig: string,
): Promise<{ lines: string[]; ok: boolean }> {
  const cr = await client.get<KubeObject & { status?: { networkAttachments?: Record<string, string[]> } }>(
    KeystoneAPIKind,
    { namespace: OPENSTACK_NAMESPACE, name: 'keystone' },
  );
  const listed = cr?.status?.networkAttachments ?? {};
  const k = (...args: string[]) =>
    run(kubectl, ['--kubeconfig', kubeconfig, '-n', OPENSTACK_NAMESPACE, ...args]);
  const pod = (
    await k('get', 'pods', '-l', 'service=keystone,!job-name', '-o', 'jsonpath={.items[0].metadata.name}')
  ).trim();
  const ipA = pod
    ? await k('exec', pod, '--', 'ip', 'a').catch((err: Error) => err.message)
    : 'no Keystone pod';
  const onStorage = [...ipA.matchAll(/inet (172\.18\.0\.\d+)\/24 /g)].map((m) => m[1] ?? '');
  const ips = listed[`${OPENSTACK_NAMESPACE}/${STORAGE_NAD}`] ?? [];
  const ok = onStorage.length === 1 && inStorageRange(onStorage[0]!) && ips.includes(onStorage[0]!);
  return {
    lines: [
      `KeystoneAPI ${OPENSTACK_NAMESPACE}/keystone status.networkAttachments: ${JSON.stringify(listed)}`,
      `\`ip a\` in pod ${OPENSTACK_NAMESPACE}/${pod} (the interface named after the NAD, as the operator attaches it):`,
      ...ipA
        .trimEnd()
        .split('\n')
        .map((l) => `  ${l}`),
    ],
    ok,
  };
}
