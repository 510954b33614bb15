import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { realNodeLabels } from '@stackops/kube-env';
import { isAlreadyExists, Kinds, type KubeClient, type KubeObject } from '@stackops/lib-common/client';
import type { CatalogueRow } from './keystone.js';
import { realNodeTaint } from './real-node.js';
import { OPENSTACK_NAMESPACE } from './targets.js';

const execFileP = promisify(execFile);

/**
 * The namespace `openstack` (or `name`), annotated so that kube-apiserver's PodNodeSelector and
 * PodTolerationRestriction put every pod created in it on the real nodes (only the one named `node`,
 * when given): Keystone, Placement, their Jobs and MariaDB run for real while the other products'
 * workloads stay on kwok. Created, or an
 * existing namespace patched. Not server-side applied: the examples are applied with the same field
 * manager, and their Namespace (no annotations) would then take the annotations away.
 */
export async function openstackNamespaceOnRealNode(
  client: KubeClient,
  name: string = OPENSTACK_NAMESPACE,
  node?: string,
): Promise<void> {
  const selector: Record<string, string> = {
    ...realNodeLabels,
    ...(node ? { 'kubernetes.io/hostname': node } : {}),
  };
  const annotations = {
    'scheduler.alpha.kubernetes.io/node-selector': Object.entries(selector)
      .map(([k, v]) => `${k}=${v}`)
      .join(','),
    'scheduler.alpha.kubernetes.io/defaultTolerations': JSON.stringify([
      { operator: 'Equal', ...realNodeTaint },
    ]),
  };
  try {
    await client.create(Kinds.Namespace, {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name, annotations },
    });
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
    await client.patch(Kinds.Namespace, { name }, { metadata: { annotations } }, 'merge');
  }
}

/**
 * MariaDB behind the examples' Service `openstack` (app=mariadb), from the stand-in image; its root
 * password is the examples' `DbRootPassword`, which the operators' db-create Jobs use.
 */
export function mariadbPod(image: string, namespace = OPENSTACK_NAMESPACE): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'mariadb', namespace, labels: { app: 'mariadb' } },
    spec: {
      securityContext: { fsGroup: 42434 },
      containers: [
        {
          name: 'mariadb',
          image,
          imagePullPolicy: 'Never',
          env: [
            {
              name: 'DB_ROOT_PASSWORD',
              valueFrom: { secretKeyRef: { name: 'osp-secret', key: 'DbRootPassword' } },
            },
          ],
          ports: [{ containerPort: 3306, name: 'mysql' }],
          readinessProbe: { tcpSocket: { port: 3306 }, periodSeconds: 2 },
          volumeMounts: [{ name: 'data', mountPath: '/var/lib/mysql' }],
        },
      ],
      volumes: [{ name: 'data', emptyDir: {} }],
    },
  } as KubeObject;
}

/**
 * An `openstackclient` pod as upstream's openstack-operator runs one: `OS_CLOUD`, clouds.yaml and
 * secure.yaml from the ConfigMap and Secret keystone-operator renders for cloud-admin.
 */
export function openstackClientPod(image: string, namespace = OPENSTACK_NAMESPACE): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'openstackclient', namespace },
    spec: {
      containers: [
        {
          name: 'openstackclient',
          image,
          imagePullPolicy: 'Never',
          command: ['/bin/sleep', 'infinity'],
          env: [
            {
              name: 'OS_CLOUD',
              valueFrom: { configMapKeyRef: { name: 'openstack-config', key: 'OS_CLOUD' } },
            },
          ],
          volumeMounts: [
            {
              name: 'clouds',
              mountPath: '/home/cloud-admin/.config/openstack/clouds.yaml',
              subPath: 'clouds.yaml',
            },
            {
              name: 'secure',
              mountPath: '/home/cloud-admin/.config/openstack/secure.yaml',
              subPath: 'secure.yaml',
            },
          ],
        },
      ],
      volumes: [
        { name: 'clouds', configMap: { name: 'openstack-config' } },
        { name: 'secure', secret: { secretName: 'openstack-config-secret' } },
      ],
    },
  } as KubeObject;
}

interface EndpointListRow {
  'Service Name': string;
  'Service Type': string;
  Interface: string;
  Region: string | null;
  URL: string;
}

/** `openstack endpoint list`, run in the openstackclient pod against the in-cluster Keystone. */
export async function readCatalogueFromPod(kubectl: string, kubeconfig: string): Promise<CatalogueRow[]> {
  const { stdout } = await execFileP(
    kubectl,
    [
      '--kubeconfig',
      kubeconfig,
      'exec',
      '-n',
      OPENSTACK_NAMESPACE,
      'openstackclient',
      '--',
      'openstack',
      'endpoint',
      'list',
      '-f',
      'json',
    ],
    { timeout: 120_000, maxBuffer: 16 * 1024 * 1024 },
  );
  return (JSON.parse(stdout) as EndpointListRow[])
    .map((e) => ({
      service: e['Service Name'],
      type: e['Service Type'],
      interface: e.Interface,
      region: e.Region ?? '',
      url: e.URL,
    }))
    .sort((a, b) => `${a.service}/${a.interface}`.localeCompare(`${b.service}/${b.interface}`));
}

interface PodShape extends KubeObject {
  spec: { nodeName?: string; containers: { image: string }[] };
  status?: {
    phase?: string;
    conditions?: { type: string; status: string }[];
    containerStatuses?: { restartCount: number }[];
  };
}

/** A pod of namespace `openstack`: where it runs, from which image, and how it is doing. */
export interface WorkloadPod {
  name: string;
  node: string;
  state: string;
  restarts: number;
  image: string;
}

/** What the operators deployed (and the demo's MariaDB), as pods: API pods Ready, Job pods Succeeded. */
export async function openstackPods(
  client: KubeClient,
  namespace: string = OPENSTACK_NAMESPACE,
  labelSelector?: string,
): Promise<WorkloadPod[]> {
  const { items } = await client.list<PodShape>(Kinds.Pod, {
    namespace,
    ...(labelSelector ? { labelSelector } : {}),
  });
  return items
    .filter((p) => !p.metadata.deletionTimestamp)
    .map((p) => ({
      name: p.metadata.name ?? '',
      node: p.spec.nodeName ?? '',
      state: p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')
        ? 'Ready'
        : (p.status?.phase ?? 'Unknown'),
      restarts: (p.status?.containerStatuses ?? []).reduce((n, c) => n + c.restartCount, 0),
      image: p.spec.containers[0]?.image ?? '',
    }))
    .sort((a, b) => a.name.localeCompare(b.name));
}
