import { Kinds, reconcileRbac, SERVICE_POD_RULES } from '@stackops/lib-common/resources';
import { KeystoneNames } from '../../resources/names.js';
import type { StepContext, StepResult } from './context.js';

/** Step 8: ServiceAccount `keystone-<cr>`, its Role and RoleBinding (upstream's rules). */
export async function ensureRbac(ctx: StepContext): Promise<StepResult> {
  const name = KeystoneNames.serviceAccount(ctx.cr);
  const namespace = ctx.cr.metadata.namespace ?? '';
  const [serviceAccount, role, roleBinding] = await Promise.all([
    ctx.reader.get(Kinds.ServiceAccount, { name, namespace }),
    ctx.reader.get(Kinds.Role, { name: `${name}-role`, namespace }),
    ctx.reader.get(Kinds.RoleBinding, { name: `${name}-rolebinding`, namespace }),
  ]);
  await reconcileRbac(
    ctx.client,
    ctx.cr,
    ctx.conditions,
    { name, namespace, rules: SERVICE_POD_RULES },
    { serviceAccount: serviceAccount ?? null, role: role ?? null, roleBinding: roleBinding ?? null },
  );
  return undefined;
}
