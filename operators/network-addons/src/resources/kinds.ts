import { apiVersionOf, type KindRef, Kinds, type KubeObject } from '@stackops/lib-common/client';

const NetworkPolicyKind: KindRef = {
  group: 'networking.k8s.io',
  version: 'v1',
  kind: 'NetworkPolicy',
  plural: 'networkpolicies',
  namespaced: true,
};
export const CertificateKind: KindRef = {
  group: 'cert-manager.io',
  version: 'v1',
  kind: 'Certificate',
  plural: 'certificates',
  namespaced: true,
};
export const IssuerKind: KindRef = {
  group: 'cert-manager.io',
  version: 'v1',
  kind: 'Issuer',
  plural: 'issuers',
  namespaced: true,
};

/** Every kind a component template renders (the chart's RBAC grants exactly these). */
export const RENDERED_KINDS: readonly KindRef[] = [
  Kinds.ConfigMap,
  Kinds.ServiceAccount,
  Kinds.Service,
  Kinds.DaemonSet,
  Kinds.Deployment,
  Kinds.ClusterRole,
  Kinds.ClusterRoleBinding,
  Kinds.Role,
  Kinds.RoleBinding,
  Kinds.MutatingWebhookConfiguration,
  Kinds.CustomResourceDefinition,
  NetworkPolicyKind,
];

/** Rendered only where cert-manager's API is served. */
export const CERT_MANAGER_KINDS: readonly KindRef[] = [CertificateKind, IssuerKind];

const byTypeMeta = new Map(
  [...RENDERED_KINDS, ...CERT_MANAGER_KINDS].map((k) => [`${apiVersionOf(k)}|${k.kind}`, k]),
);

/** The KindRef of a rendered object; throws for a kind no template should produce. */
export function kindOf(obj: KubeObject): KindRef {
  const kind = byTypeMeta.get(`${obj.apiVersion}|${obj.kind}`);
  if (!kind) throw new Error(`no known kind for ${obj.apiVersion} ${obj.kind}`);
  return kind;
}
