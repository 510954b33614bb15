import {
  Kinds,
  reconcileRbac as reconcileServiceRbac,
  SERVICE_POD_RULES,
} from '@stackops/lib-common/resources';
import { childNames } from '../../resources/names.js';
import type { ReconcileState, StepIo, StepResult } from '../state.js';

/**
 * ServiceAccount `placement-<name>`, Role `placement-<name>-role` (upstream's pod rules) and the
 * RoleBinding, with ServiceAccountReady/RoleReady/RoleBindingReady. Errors are reported and rethrown.
 */
export async function reconcileRbac(s: ReconcileState, io: StepIo): Promise<StepResult> {
  const namespace = s.cr.metadata.namespace!;
  const names = childNames(s.cr.metadata.name!);
  const cached = (kind: typeof Kinds.Role, name: string) => io.cache.get(kind, { name, namespace }) ?? null;
  await reconcileServiceRbac(
    io.client,
    s.cr,
    s.conditions,
    { name: names.serviceAccount, namespace, rules: SERVICE_POD_RULES },
    {
      serviceAccount: cached(Kinds.ServiceAccount, names.serviceAccount),
      role: cached(Kinds.Role, names.role),
      roleBinding: cached(Kinds.RoleBinding, names.roleBinding),
    },
  );
  return undefined;
}
