import { childNames } from './names.js';

/** What placement pods may do (upstream keystone/placement rules: anyuid SCC on OpenShift, pods). */
export const placementRoleRules = [
  {
    apiGroups: ['security.openshift.io'],
    resourceNames: ['anyuid'],
    resources: ['securitycontextconstraints'],
    verbs: ['use'],
  },
  {
    apiGroups: [''],
    resources: ['pods'],
    verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
  },
];

/** ServiceAccount `placement-<name>`, its Role and RoleBinding (owner references added when applied). */
export function placementRbac(crName: string, namespace: string) {
  const names = childNames(crName);
  return {
    serviceAccount: {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: names.serviceAccount, namespace },
    },
    role: {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: names.role, namespace },
      rules: placementRoleRules,
    },
    roleBinding: {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: names.roleBinding, namespace },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: names.role },
      subjects: [{ kind: 'ServiceAccount', name: names.serviceAccount, namespace }],
    },
  };
}
