import { Kinds } from '@stackops/lib-common/client';
import { reconcileRbac, SERVICE_POD_RULES } from '@stackops/lib-common/openstack';
import type { StepResult } from '@stackops/lib-common/pipeline';
import { KeystoneNames } from '../../../resources/names.js';
import type { KeystoneApiPass } from '../context.js';

/** ServiceAccount `keystone-<cr>`, its Role and RoleBinding (upstream's rules). */
export async function ensureRbac(ctx: KeystoneApiPass): Promise<StepResult> {
  const name = KeystoneNames.serviceAccount(ctx.cr);
  const namespace = ctx.cr.metadata.namespace ?? '';
  const serviceAccount = ctx.cache.get(Kinds.ServiceAccount, { name, namespace });
  const role = ctx.cache.get(Kinds.Role, { name: `${name}-role`, namespace });
  const roleBinding = ctx.cache.get(Kinds.RoleBinding, { name: `${name}-rolebinding`, namespace });
  await reconcileRbac(
    ctx.client,
    ctx.cr,
    ctx.conditions,
    { name, namespace, rules: SERVICE_POD_RULES },
    { serviceAccount: serviceAccount ?? null, role: role ?? null, roleBinding: roleBinding ?? null },
  );
  return undefined;
}
