/** Everything needed to address a kind over REST, without discovery. */
export interface KindRef {
  group: string; // '' for the core group
  version: string;
  kind: string;
  plural: string;
  namespaced: boolean;
}

export const apiVersionOf = (k: KindRef): string => (k.group ? `${k.group}/${k.version}` : k.version);

export const kindKey = (k: KindRef): string => `${k.kind}.${k.version}.${k.group || 'core'}`;

/** The REST path of a collection or one object (optionally a subresource). */
export function resourcePath(k: KindRef, namespace?: string, name?: string, subresource?: string): string {
  const base = k.group ? `/apis/${k.group}/${k.version}` : `/api/${k.version}`;
  const ns = k.namespaced && namespace ? `/namespaces/${encodeURIComponent(namespace)}` : '';
  const obj = name ? `/${encodeURIComponent(name)}` : '';
  const sub = name && subresource ? `/${subresource}` : '';
  return `${base}${ns}/${k.plural}${obj}${sub}`;
}

const core = (kind: string, plural: string, namespaced = true): KindRef => ({
  group: '',
  version: 'v1',
  kind,
  plural,
  namespaced,
});
const grp = (group: string, version: string, kind: string, plural: string, namespaced = true): KindRef => ({
  group,
  version,
  kind,
  plural,
  namespaced,
});

/** Built-in kinds the operators read or own. */
export const Kinds = {
  Namespace: core('Namespace', 'namespaces', false),
  Node: core('Node', 'nodes', false),
  Pod: core('Pod', 'pods'),
  Secret: core('Secret', 'secrets'),
  ConfigMap: core('ConfigMap', 'configmaps'),
  Service: core('Service', 'services'),
  ServiceAccount: core('ServiceAccount', 'serviceaccounts'),
  Event: core('Event', 'events'),
  Deployment: grp('apps', 'v1', 'Deployment', 'deployments'),
  DaemonSet: grp('apps', 'v1', 'DaemonSet', 'daemonsets'),
  StatefulSet: grp('apps', 'v1', 'StatefulSet', 'statefulsets'),
  Job: grp('batch', 'v1', 'Job', 'jobs'),
  CronJob: grp('batch', 'v1', 'CronJob', 'cronjobs'),
  PodDisruptionBudget: grp('policy', 'v1', 'PodDisruptionBudget', 'poddisruptionbudgets'),
  Role: grp('rbac.authorization.k8s.io', 'v1', 'Role', 'roles'),
  RoleBinding: grp('rbac.authorization.k8s.io', 'v1', 'RoleBinding', 'rolebindings'),
  ClusterRole: grp('rbac.authorization.k8s.io', 'v1', 'ClusterRole', 'clusterroles', false),
  ClusterRoleBinding: grp(
    'rbac.authorization.k8s.io',
    'v1',
    'ClusterRoleBinding',
    'clusterrolebindings',
    false,
  ),
  Lease: grp('coordination.k8s.io', 'v1', 'Lease', 'leases'),
  CustomResourceDefinition: grp(
    'apiextensions.k8s.io',
    'v1',
    'CustomResourceDefinition',
    'customresourcedefinitions',
    false,
  ),
  MutatingWebhookConfiguration: grp(
    'admissionregistration.k8s.io',
    'v1',
    'MutatingWebhookConfiguration',
    'mutatingwebhookconfigurations',
    false,
  ),
  ValidatingWebhookConfiguration: grp(
    'admissionregistration.k8s.io',
    'v1',
    'ValidatingWebhookConfiguration',
    'validatingwebhookconfigurations',
    false,
  ),
  NetworkAttachmentDefinition: grp(
    'k8s.cni.cncf.io',
    'v1',
    'NetworkAttachmentDefinition',
    'network-attachment-definitions',
  ),
} as const satisfies Record<string, KindRef>;
