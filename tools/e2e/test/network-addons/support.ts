import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { operatorOnRealNodeValues, realNodeTaint } from '@stackops/demo/real-node';
import { NetworkAddonsConfigKind } from '@stackops/demo/targets';
import { buildNetworkImages, type NetworkImageName } from '@stackops/images/network';
import { clusterLayout, loadImages, realNodeLabels } from '@stackops/kube-env';
import type { KubeObject } from '@stackops/lib-common/client';
import { parse, stringify } from 'yaml';
import { podsReady } from '../openstack/support.js';
import {
  adminClient,
  cleanUp,
  helmInstall,
  kubectl,
  type PodShape,
  realNodes,
  repoRoot,
  scratchFile,
  waitForCondition,
} from '../support.js';

const execFileP = promisify(execFile);

/** The release's namespace, which is also where the operator puts its components. */
export const OPERAND_NAMESPACE = 'stackops-network';
const WHEREABOUTS_NAMESPACE = 'whereabouts-e2e';

/** Network add-on images (built or from the cache), loaded into the cluster's real nodes (or one); their names. */
export async function loadNetworkImages<N extends NetworkImageName>(
  cluster: string,
  only: readonly N[],
  node?: string,
): Promise<Record<N, string>> {
  const images = await buildNetworkImages({ only });
  const wanted = only.map((n) => {
    const image = images[n];
    if (!image) throw new Error(`no ${n} image built`);
    return image;
  });
  await loadImages(
    cluster,
    wanted.map((i) => i.built.archive),
    node,
  );
  return Object.fromEntries(wanted.map((i) => [i.image, i.name])) as Record<N, string>;
}

const componentImages = ['multus', 'linuxBridge', 'bridgeMarker', 'ovsCni'] as const;
type ComponentImage = (typeof componentImages)[number];
const release = { release: 'network-addons-operator', namespace: OPERAND_NAMESPACE };
const nac = { kind: NetworkAddonsConfigKind, name: 'cluster' };
/** multus, linuxBridge and ovs, their DaemonSets on the real nodes. */
const nacSpec = {
  multus: {},
  linuxBridge: {},
  ovs: {},
  placementConfiguration: {
    workloads: {
      nodeSelector: { ...realNodeLabels },
      tolerations: [{ operator: 'Equal', ...realNodeTaint }],
    },
  },
};

/**
 * network-addons-operator from its chart on the real node, its relatedImages the images built here,
 * and a NetworkAddonsConfig with multus, linuxBridge and ovs whose DaemonSets go to the real nodes; waits
 * for Available (from their rollout). Returns the images and how long Available took.
 */
export async function installNetworkAddons(
  cluster: string,
): Promise<{ images: Record<ComponentImage, string>; availableAfterMs: number }> {
  const images = await loadNetworkImages(cluster, componentImages);
  await helmInstall(release.release, 'network-addons-operator', release.namespace, {
    ...operatorOnRealNodeValues,
    relatedImages: {
      multus: images.multus,
      linuxBridge: images.linuxBridge,
      linuxBridgeMarker: images.bridgeMarker,
      ovsCni: images.ovsCni,
    },
  });
  await applyObjects([
    {
      apiVersion: 'networkaddonsoperator.network.kubevirt.io/v1',
      kind: 'NetworkAddonsConfig',
      metadata: { name: 'cluster' },
      spec: nacSpec,
    },
  ]);
  const started = Date.now();
  await waitForCondition(adminClient(), nac.kind, nac, 'Available', 'True', 300_000);
  return { images, availableAfterMs: Date.now() - started };
}

/** Takes multus, linuxBridge and ovs out of the NetworkAddonsConfig (the placement stays). */
export async function removeComponents(): Promise<void> {
  await applyObjects([
    {
      apiVersion: 'networkaddonsoperator.network.kubevirt.io/v1',
      kind: 'NetworkAddonsConfig',
      metadata: { name: 'cluster' },
      spec: { placementConfiguration: nacSpec.placementConfiguration },
    },
  ]);
}

/** Removes an image from one real node's containerd (as if it had never been pulled there). */
export async function removeImageFromNode(cluster: string, node: string, image: string): Promise<void> {
  const state = JSON.parse(readFileSync(clusterLayout(cluster).stateFile, 'utf8')) as {
    realNodes: { name: string; containerdSocket: string }[];
  };
  const socket = state.realNodes.find((n) => n.name === node)?.containerdSocket;
  if (!socket) throw new Error(`cluster ${cluster} has no real node ${node}`);
  await execFileP('ctr', ['--address', socket, '--namespace', 'k8s.io', 'images', 'rm', image]);
}

/** Removes the NetworkAddonsConfig (the operator removes its components), then the operator. */
export async function uninstallNetworkAddons(): Promise<void> {
  await cleanUp(adminClient(), [nac], [release]);
}

/** `kubectl apply --server-side` of objects (written to one file). */
export async function applyObjects(objects: readonly KubeObject[]): Promise<void> {
  const file = scratchFile('objects.yaml', objects.map((o) => stringify(o)).join('---\n'));
  await kubectl(['apply', '--server-side', '--force-conflicts', '-f', file]);
}

/**
 * A pod that sleeps, attached to `networks` (Multus' annotation), labelled `e2e=<prefix of name>`,
 * on the first real node unless told (a bridge NAD has no uplink: it joins the pods of one node only).
 */
export function podOnNetworks(
  name: string,
  namespace: string,
  networks: string,
  image: string,
  node = realNodes[0]!,
): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace,
      labels: { e2e: name.split('-')[0]! },
      annotations: { 'k8s.v1.cni.cncf.io/networks': networks },
    },
    spec: {
      terminationGracePeriodSeconds: 0,
      nodeSelector: { 'kubernetes.io/hostname': node },
      containers: [{ name: 'main', image, command: ['sleep', 'infinity'] }],
    },
  };
}

interface NetworkStatusEntry {
  name: string;
  interface?: string;
  ips: string[];
}

/** The pod's entry for `network` (`<namespace>/<name>`) in the network-status annotation Multus wrote. */
export function networkStatus(pod: PodShape, network: string): NetworkStatusEntry {
  const raw = pod.metadata.annotations?.['k8s.v1.cni.cncf.io/network-status'];
  if (!raw) throw new Error(`pod ${pod.metadata.name} has no network-status annotation`);
  const entries = JSON.parse(raw) as NetworkStatusEntry[];
  const entry = entries.find((e) => e.name === `${pod.metadata.namespace}/${network}`);
  if (!entry) throw new Error(`pod ${pod.metadata.name}: no ${network} in its network-status: ${raw}`);
  return entry;
}

/** The seeds' NetworkAttachmentDefinition `storage` (macvlan on enp7s0.21 + whereabouts), as written, in `namespace`. */
export function seedStorageNad(namespace: string): KubeObject {
  const nad = parse(
    readFileSync(
      join(repoRoot, 'operators/keystone/test/fixtures/seed/network-attachment-definition.yaml'),
      'utf8',
    ),
  ) as KubeObject;
  return { ...nad, metadata: { ...nad.metadata, namespace } };
}

/** An address of the seeds' storage range (whereabouts 172.18.0.50-100 in 172.18.0.0/24), or fails. */
export function expectSeedStorageIp(ip: string | undefined): void {
  const last = Number(/^172\.18\.0\.(\d+)$/.exec(ip ?? '')?.[1]);
  if (!(last >= 50 && last <= 100)) throw new Error(`${ip} is not in the seeds' range 172.18.0.50-100`);
}

/** whereabouts' own module (the Go module cache): its CRDs are applied from there. */
async function whereaboutsModuleDir(): Promise<string> {
  const { stdout } = await execFileP(
    'go',
    ['mod', 'download', '-json', 'github.com/k8snetworkplumbingwg/whereabouts@v0.9.2'],
    {
      cwd: tmpdir(),
      env: { ...process.env, GOTOOLCHAIN: 'local', GOFLAGS: '-mod=mod', GOWORK: 'off' },
    },
  );
  return (JSON.parse(stdout) as { Dir: string }).Dir;
}

/**
 * whereabouts as a user would install it (it is not a network-addons component): its CRDs, RBAC,
 * and a DaemonSet on the real nodes whose installer puts the plugin and its kubeconfig on the node.
 */
export async function installWhereabouts(cluster: string): Promise<void> {
  const { whereabouts: image } = await loadNetworkImages(cluster, ['whereabouts']);
  const crds = join(await whereaboutsModuleDir(), 'doc', 'crds');
  for (const file of readdirSync(crds).filter((f) => f.startsWith('whereabouts.cni.cncf.io_'))) {
    await kubectl(['apply', '--server-side', '-f', join(crds, file)]);
  }
  const name = 'whereabouts';
  await applyObjects([
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: WHEREABOUTS_NAMESPACE } },
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace: WHEREABOUTS_NAMESPACE } },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'whereabouts-e2e' },
      rules: [
        { apiGroups: ['whereabouts.cni.cncf.io'], resources: ['*'], verbs: ['*'] },
        { apiGroups: [''], resources: ['pods'], verbs: ['list', 'watch', 'get'] },
        { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['create', 'get', 'update'] },
        { apiGroups: ['', 'events.k8s.io'], resources: ['events'], verbs: ['create', 'patch', 'update'] },
      ],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'whereabouts-e2e' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'whereabouts-e2e' },
      subjects: [{ kind: 'ServiceAccount', name, namespace: WHEREABOUTS_NAMESPACE }],
    },
    {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name, namespace: WHEREABOUTS_NAMESPACE },
      spec: {
        selector: { matchLabels: { app: name } },
        template: {
          metadata: { labels: { app: name } },
          spec: {
            serviceAccountName: name,
            hostNetwork: true,
            nodeSelector: { ...realNodeLabels },
            tolerations: [{ operator: 'Equal', ...realNodeTaint }],
            containers: [
              {
                name,
                image,
                volumeMounts: [
                  { name: 'cnibin', mountPath: '/host/opt/cni/bin' },
                  { name: 'cninet', mountPath: '/host/etc/cni/net.d' },
                ],
              },
            ],
            volumes: [
              { name: 'cnibin', hostPath: { path: '/opt/cni/bin' } },
              { name: 'cninet', hostPath: { path: '/etc/cni/net.d' } },
            ],
          },
        },
      },
    },
  ]);
  // A DaemonSet: one pod per real node.
  await podsReady(adminClient(), WHEREABOUTS_NAMESPACE, `app=${name}`, realNodes.length, 120_000);
}

/** Removes what installWhereabouts added (the binary and config it wrote on the node stay with the node). */
export async function uninstallWhereabouts(): Promise<void> {
  await kubectl(['delete', 'namespace', WHEREABOUTS_NAMESPACE, '--ignore-not-found', '--wait']);
  await kubectl(['delete', 'clusterrole,clusterrolebinding', 'whereabouts-e2e', '--ignore-not-found']);
}
