import { Kinds } from '@stackops/lib-common/client';
import { ConditionType } from '@stackops/lib-common/conditions';
import type { SecretObject } from '@stackops/lib-common/objects';
import type { StepResult } from '@stackops/lib-common/pipeline';
import { ensureKeys } from '../../../fernet/keys.js';
import { buildKeysSecret } from '../../../resources/keys-secret.js';
import { KeystoneNames, ROTATED_AT_ANNOTATION } from '../../../resources/names.js';
import { applyChild } from '../apply.js';
import type { KeystoneApiPass } from '../context.js';

/**
 * The fernet and credential keys in Secret `keystone` — created, rotated when due, resized
 * to `fernetMaxActiveKeys`. The keys are not an input of the pods' hash: files update in place and
 * rotation restarts nothing. The reconcile is asked to come back when the next rotation is due.
 */
export async function ensureFernetKeys(ctx: KeystoneApiPass): Promise<StepResult> {
  const ns = ctx.cr.metadata.namespace ?? '';
  try {
    const current = ctx.cache.get<SecretObject>(Kinds.Secret, {
      name: KeystoneNames.fernetSecret,
      namespace: ns,
    });
    const now = ctx.now();
    const keys = ensureKeys({
      data: current?.data,
      rotatedAt: current?.metadata.annotations?.[ROTATED_AT_ANNOTATION],
      maxActiveKeys: ctx.spec.fernetMaxActiveKeys,
      rotationDays: ctx.spec.fernetRotationDays,
      now,
    });
    await applyChild(ctx, Kinds.Secret, buildKeysSecret(ctx.cr, keys));
    if (keys.rotated) ctx.event('Normal', 'FernetKeysRotated', 'fernet keys rotated');
    ctx.requeueAfter(Math.max(1000, keys.nextRotation.getTime() - now.getTime()));
  } catch (err) {
    ctx.conditions.markError(ConditionType.ServiceConfigReady, err);
    throw err;
  }
  return undefined;
}
