import { Kinds } from '@stackops/lib-common/client';
import { reconcileRbac, SERVICE_POD_RULES } from '@stackops/lib-common/openstack';
import type { StepResult } from '@stackops/lib-common/pipeline';
import { childNames } from '../../resources/names.js';
import type { PlacementApiPass } from '../context.js';

/**
 * ServiceAccount `placement-<name>`, Role `placement-<name>-role` (upstream's pod rules) and the
 * RoleBinding, with ServiceAccountReady/RoleReady/RoleBindingReady. Errors are reported and rethrown.
 */
export async function ensureRbac(ctx: PlacementApiPass): Promise<StepResult> {
  const namespace = ctx.cr.metadata.namespace!;
  const names = childNames(ctx.cr.metadata.name!);
  const cached = (kind: typeof Kinds.Role, name: string) => ctx.cache.get(kind, { name, namespace }) ?? null;
  await reconcileRbac(
    ctx.client,
    ctx.cr,
    ctx.conditions,
    { name: names.serviceAccount, namespace, rules: SERVICE_POD_RULES },
    {
      serviceAccount: cached(Kinds.ServiceAccount, names.serviceAccount),
      role: cached(Kinds.Role, names.role),
      roleBinding: cached(Kinds.RoleBinding, names.roleBinding),
    },
  );
  return undefined;
}
