import { type KindRef, Kinds } from '../client/kinds.js';
import type { KubeClient, KubeObject } from '../client/types.js';
import { ConditionType } from '../conditions/catalog.js';
import type { Conditions } from '../conditions/conditions.js';
import { applyOwned } from '../objects/apply.js';
import { inWaves } from '../objects/waves.js';

export interface PolicyRule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
  resourceNames?: string[];
}

export interface RbacInput {
  /** The ServiceAccount name; the Role and RoleBinding are `<name>-role` and `<name>-rolebinding`. */
  name: string;
  namespace: string;
  rules: PolicyRule[];
  labels?: Record<string, string>;
}

/**
 * The rules keystone and placement give their pods: `use` of the anyuid SecurityContextConstraints
 * (OpenShift). Upstream also grants pods CRUD, which the services never use; the operator would
 * have to hold it (RBAC escalation check), i.e. `create pods` in every namespace it serves.
 */
export const SERVICE_POD_RULES: PolicyRule[] = [
  {
    apiGroups: ['security.openshift.io'],
    resources: ['securitycontextconstraints'],
    resourceNames: ['anyuid'],
    verbs: ['use'],
  },
];

function meta(r: RbacInput, name: string) {
  return { name, namespace: r.namespace, ...(r.labels ? { labels: { ...r.labels } } : {}) };
}

/** ServiceAccount `<name>`, Role `<name>-role` with `rules`, RoleBinding `<name>-rolebinding` binding them. */
export function buildRbac(r: RbacInput): {
  serviceAccount: KubeObject;
  role: KubeObject;
  roleBinding: KubeObject;
} {
  const roleName = `${r.name}-role`;
  return {
    serviceAccount: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: meta(r, r.name) },
    role: {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: meta(r, roleName),
      rules: r.rules.map((rule) => ({ ...rule })),
    },
    roleBinding: {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: meta(r, `${r.name}-rolebinding`),
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: roleName },
      subjects: [{ kind: 'ServiceAccount', name: r.name, namespace: r.namespace }],
    },
  };
}

/** Objects as the caller's cache knows them (`null` = absent; omitted = read with GET). */
export interface RbacCurrent {
  serviceAccount?: KubeObject | null;
  role?: KubeObject | null;
  roleBinding?: KubeObject | null;
}

/**
 * Upstream `ReconcileRbac`: applies the ServiceAccount, Role and RoleBinding owned by `owner` (the
 * first two at once, the RoleBinding once its Role is written) and sets ServiceAccountReady, RoleReady and RoleBindingReady.
 * The condition of an object that failed goes False (Error, Warning) and the first failure, in
 * that order, is rethrown.
 */
export async function reconcileRbac(
  client: KubeClient,
  owner: KubeObject,
  conditions: Conditions,
  input: RbacInput,
  current: RbacCurrent = {},
): Promise<void> {
  const objs = buildRbac(input);
  const steps: [KindRef, KubeObject, KubeObject | null | undefined, string][] = [
    [Kinds.ServiceAccount, objs.serviceAccount, current.serviceAccount, ConditionType.ServiceAccountReady],
    [Kinds.Role, objs.role, current.role, ConditionType.RoleReady],
    [Kinds.RoleBinding, objs.roleBinding, current.roleBinding, ConditionType.RoleBindingReady],
  ];
  await inWaves(
    steps,
    ([kind]) => kind.kind,
    async ([kind, obj, cur, type]) => {
      try {
        await applyOwned(client, owner, kind, obj, cur !== undefined ? { current: cur } : {});
      } catch (err) {
        conditions.markError(type, err);
        throw err;
      }
      conditions.markTrue(type);
    },
    { objectOf: ([, obj]) => obj },
  );
}
