import type { KindRef, KubeObject } from '@stackops/lib-common/client';
import { stableHash } from '@stackops/lib-common/objects';

/** One object a service needs, ready to server-side apply (the owner reference is added by the applier). */
export interface DesiredObject {
  kind: KindRef;
  object: KubeObject;
}

/** Pod template annotation whose change rolls a Deployment when its configuration changes. */
export const CONFIG_HASH_ANNOTATION = 'sip.airshipit.org/config-hash';

/** Hash of everything a pod's configuration is made of (lib-common's stable hash). */
export const configHash = (...inputs: unknown[]): string => stableHash(inputs);

/** Secret/ConfigMap `data` values: base64 for Secrets (never stringData, which SSA cannot compare). */
const base64Data = (data: Record<string, string>): Record<string, string> =>
  Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v, 'utf8').toString('base64')]));

/** Tolerations that let the services run on control-plane nodes, where upstream pinned the load balancers. */
export const controlPlaneTolerations = [
  { key: 'node-role.kubernetes.io/control-plane', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node-role.kubernetes.io/master', operator: 'Exists', effect: 'NoSchedule' },
];

/** `nodeLabels` as the pods' nodeSelector (upstream declared the field and never used it). */
export const nodeSelectorOf = (nodeLabels: Record<string, string> | undefined) =>
  nodeLabels && Object.keys(nodeLabels).length > 0 ? { nodeSelector: nodeLabels } : {};

/** How long a rolled-out service pod may finish its established connections (load balancers, ssh sessions). */
export const DRAIN_SECONDS = 60;

export const tcpPort = (name: string, port: number) => ({ name, containerPort: port, protocol: 'TCP' });
export const nodePort = (name: string, port: number, node: number) => ({
  name,
  port,
  targetPort: port,
  nodePort: node,
  protocol: 'TCP',
});

type Labels = Record<string, string>;

/** An Opaque Secret holding a service's configuration files. */
export const configSecret = (
  name: string,
  namespace: string,
  labels: Labels,
  files: Record<string, string>,
) => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name, namespace, labels },
  type: 'Opaque',
  data: base64Data(files),
});

/** A NodePort Service selecting the instance's pods. */
export const nodePortService = (
  name: string,
  namespace: string,
  labels: Labels,
  ports: ReturnType<typeof nodePort>[],
) => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name, namespace, labels },
  spec: { type: 'NodePort', selector: labels, ports },
});

/** A ConfigMap of text files. */
export const configMap = (name: string, namespace: string, labels: Labels, data: Record<string, string>) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace, labels },
  data,
});

/** A one-replica Deployment of the instance whose pods roll when `hash` (its configuration) changes. */
export const serviceDeployment = (
  name: string,
  namespace: string,
  labels: Labels,
  hash: string,
  podSpec: Record<string, unknown>,
) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, namespace, labels },
  spec: {
    replicas: 1,
    selector: { matchLabels: labels },
    template: { metadata: { labels, annotations: { [CONFIG_HASH_ANNOTATION]: hash } }, spec: podSpec },
  },
});
