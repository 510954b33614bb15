import {
  ApplicationCredentialLabels,
  ApplicationCredentialSecretKeys,
  acConsumerFinalizer,
} from '@stackops/keystone-operator';
import { Kinds } from '@stackops/lib-common/client';
import { Conditions, ConditionType, Reason, Severity } from '@stackops/lib-common/conditions';
import { type SecretObject, secretValue } from '@stackops/lib-common/objects';
import { holdFinalizer, releaseFinalizer } from '@stackops/lib-common/runtime';
import { PLACEMENT_SERVICE_NAME } from '../../api/constants.js';
import type { PlacementApiPass } from '../context.js';

/** `openstack.org/placement-ac-consumer`: the credential Secret placement uses is never revoked under it. */
const PLACEMENT_AC_CONSUMER = acConsumerFinalizer(PLACEMENT_SERVICE_NAME);

export type ApplicationCredentialRead =
  | { state: 'unused' }
  | { state: 'found'; id: string; secret: string; secretObject: SecretObject }
  | { state: 'problem' };

/**
 * The application credential `spec.auth.applicationCredentialSecret` names (keys AC_ID and AC_SECRET,
 * as keystone-operator writes them), from the Secret watched by name. A missing Secret is
 * ServiceConfigReady False naming it (waiting: its creation wakes the reconcile); a Secret without
 * the keys is bad input (severity Error) with one Warning Event.
 */
export function readApplicationCredential(ctx: PlacementApiPass): ApplicationCredentialRead {
  const name = ctx.cr.spec.auth?.applicationCredentialSecret;
  if (!name) return { state: 'unused' };
  const namespace = ctx.cr.metadata.namespace ?? '';
  const secretObject = ctx.cache.get<SecretObject>(Kinds.Secret, { namespace, name });
  const type = ConditionType.ServiceConfigReady;
  if (!secretObject) {
    ctx.conditions.markFalse(
      type,
      Reason.Requested,
      Severity.Info,
      'ApplicationCredential secret not found: %s (spec.auth.applicationCredentialSecret)',
      name,
    );
    return { state: 'problem' };
  }
  const id = secretValue(secretObject, ApplicationCredentialSecretKeys.id);
  const secret = secretValue(secretObject, ApplicationCredentialSecretKeys.secret);
  if (!id || !secret) {
    ctx.conditions.markFalse(
      type,
      Reason.Error,
      Severity.Error,
      'ApplicationCredential secret missing required keys: %s needs %s and %s (spec.auth.applicationCredentialSecret)',
      name,
      ApplicationCredentialSecretKeys.id,
      ApplicationCredentialSecretKeys.secret,
    );
    const message = ctx.conditions.get(type)?.message ?? '';
    const before = Conditions.from(
      (ctx.previousStatus as { conditions?: unknown } | undefined)?.conditions,
    ).get(type);
    if (before?.message !== message) ctx.event('Warning', 'InvalidSpec', message);
    return { state: 'problem' };
  }
  return { state: 'found', id, secret, secretObject };
}

/** Every credential Secret of the namespace placement holds (read from the API server: few, labelled). */
async function heldSecrets(ctx: PlacementApiPass): Promise<SecretObject[]> {
  const list = await ctx.client.list<SecretObject>(Kinds.Secret, {
    namespace: ctx.cr.metadata.namespace ?? '',
    labelSelector: `${ApplicationCredentialLabels.all}=true`,
  });
  return list.items.filter((s) => (s.metadata.finalizers ?? []).includes(PLACEMENT_AC_CONSUMER));
}

/**
 * Once placement.conf uses a credential Secret, placement holds it with its consumer finalizer and
 * lets go of the ones it held before (keystone-operator keeps the previous one anyway, so pods still
 * rolling keep working). `switchedAway`: the config no longer uses a credential (the name was removed).
 * The other Secrets are listed only when something changed.
 */
export async function holdApplicationCredential(
  ctx: PlacementApiPass,
  used: ApplicationCredentialRead,
  switchedAway: boolean,
): Promise<void> {
  let changed = switchedAway;
  if (
    used.state === 'found' &&
    !(used.secretObject.metadata.finalizers ?? []).includes(PLACEMENT_AC_CONSUMER)
  ) {
    await holdFinalizer(ctx.client, Kinds.Secret, used.secretObject, PLACEMENT_AC_CONSUMER);
    changed = true;
  }
  if (!changed) return;
  const keep = used.state === 'found' ? used.secretObject.metadata.name : undefined;
  for (const s of await heldSecrets(ctx))
    if (s.metadata.name !== keep) await releaseFinalizer(ctx.client, Kinds.Secret, s, PLACEMENT_AC_CONSUMER);
}

/** On deletion: placement holds no credential Secret any more. */
export async function releaseApplicationCredential(ctx: PlacementApiPass) {
  for (const s of await heldSecrets(ctx))
    await releaseFinalizer(ctx.client, Kinds.Secret, s, PLACEMENT_AC_CONSUMER);
  return undefined;
}
