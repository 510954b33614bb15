import { type KindRef, Kinds } from '../client/kinds.js';
import type { KubeClient, KubeObject } from '../client/types.js';
import { ConditionType, Reason, Severity } from '../conditions/catalog.js';
import type { Conditions } from '../conditions/conditions.js';
import { applyOwned } from '../objects/apply.js';
import { controllerOf } from '../objects/owner.js';
import { inWaves } from '../objects/waves.js';
import { ReconcileError } from '../runtime/error-policy.js';

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
 * Why an existing RBAC object is not this owner's to change, or undefined when it is (controlled by
 * the owner, as upstream's operator leaves what it created for the same CR). A previous CR of the
 * same name is being garbage-collected (a Warning: it goes by itself); anything else is an Error.
 */
function notOwnedBy(owner: KubeObject, live: KubeObject): { why: string; severity: Severity } | undefined {
  const controller = controllerOf(live);
  if (controller?.uid === owner.metadata.uid) return undefined;
  if (!controller) return { why: 'it has no controller', severity: Severity.Error };
  const previous = controller.kind === owner.kind && controller.name === owner.metadata.name;
  return {
    why: previous
      ? `it belongs to a deleted ${controller.kind} of the same name, until garbage collection removes it`
      : `it is controlled by ${controller.kind} ${controller.name}`,
    severity: previous ? Severity.Warning : Severity.Error,
  };
}

/**
 * Upstream `ReconcileRbac`: applies the ServiceAccount, Role and RoleBinding owned by `owner` (the
 * first two at once, the RoleBinding once its Role is written) and sets ServiceAccountReady,
 * RoleReady and RoleBindingReady. The condition of an object that failed goes False (Error,
 * Warning) and the first failure, in that order, is rethrown.
 *
 * One that exists and is not controlled by `owner` is not taken over: whoever may create the
 * owner (namespace edit rights, which exclude Roles and RoleBindings) must not rewrite or, by
 * deleting the owner, garbage-collect an admin's RBAC object of the same name. Its condition goes
 * False (Error, the object and its controller named), nothing is written, and a NotOwned error is
 * thrown; the pass after the object is renamed or removed goes on.
 */
export async function reconcileRbac(
  client: KubeClient,
  owner: KubeObject,
  conditions: Conditions,
  input: RbacInput,
  current: RbacCurrent = {},
): Promise<void> {
  const objs = buildRbac(input);
  const read = async (kind: KindRef, obj: KubeObject, known: KubeObject | null | undefined) =>
    known !== undefined
      ? known
      : ((await client.get(kind, { name: obj.metadata.name ?? '', namespace: input.namespace })) ?? null);
  const [sa, role, binding] = await Promise.all([
    read(Kinds.ServiceAccount, objs.serviceAccount, current.serviceAccount),
    read(Kinds.Role, objs.role, current.role),
    read(Kinds.RoleBinding, objs.roleBinding, current.roleBinding),
  ]);
  const steps: [KindRef, KubeObject, KubeObject | null, string][] = [
    [Kinds.ServiceAccount, objs.serviceAccount, sa, ConditionType.ServiceAccountReady],
    [Kinds.Role, objs.role, role, ConditionType.RoleReady],
    [Kinds.RoleBinding, objs.roleBinding, binding, ConditionType.RoleBindingReady],
  ];
  const refused = steps.flatMap(([kind, obj, live, type]) => {
    const not = live ? notOwnedBy(owner, live) : undefined;
    if (!not) return [];
    const what = `${kind.kind} ${input.namespace}/${obj.metadata.name}`;
    conditions.markFalse(
      type,
      Reason.Error,
      not.severity,
      "%s exists and is not this %s's (%s): not taken over; rename or remove it",
      what,
      owner.kind ?? 'owner',
      not.why,
    );
    return [{ message: conditions.get(type)?.message ?? what, severity: not.severity }];
  });
  if (refused.length)
    throw new ReconcileError(refused.map((r) => r.message).join('; '), {
      reason: 'NotOwned',
      severity: refused.some((r) => r.severity === Severity.Error) ? 'Error' : 'Warning',
    });
  await inWaves(
    steps,
    ([kind]) => kind.kind,
    async ([kind, obj, live, type]) => {
      try {
        await applyOwned(client, owner, kind, obj, { current: live });
      } catch (err) {
        conditions.markError(type, err);
        throw err;
      }
      conditions.markTrue(type);
    },
    { objectOf: ([, obj]) => obj },
  );
}
