import {
  ApplicationCredentialLabels,
  ApplicationCredentialSecretKeys,
  acConsumerFinalizer,
} from '@stackops/keystone-operator';
import { Kinds } from '@stackops/lib-common/client';
import { Conditions, ConditionType, Reason, Severity } from '@stackops/lib-common/conditions';
import { type SecretObject, secretValue } from '@stackops/lib-common/objects';
import type { StepResult } from '@stackops/lib-common/pipeline';
import { holdFinalizer, releaseFinalizer } from '@stackops/lib-common/runtime';
import { PLACEMENT_SERVICE_NAME } from '../../api/constants.js';
import type { PlacementApiPass } from '../context.js';

/**
 * `openstack.org/placementapi-ac-consumer`, the name the Go operators hold a credential Secret
 * under (the consumer is the PlacementAPI kind), so that a switch in either direction keeps it held.
 */
const PLACEMENT_AC_CONSUMER = acConsumerFinalizer('placementapi');
/** The name earlier stackops releases used; taken over (replaced) wherever it is found. */
const EARLIER_AC_CONSUMER = acConsumerFinalizer(PLACEMENT_SERVICE_NAME);
const CONSUMERS = [PLACEMENT_AC_CONSUMER, EARLIER_AC_CONSUMER];

const heldBy = (s: SecretObject, finalizers: readonly string[]) =>
  (s.metadata.finalizers ?? []).some((f) => finalizers.includes(f));

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

/** Every credential Secret of the namespace placement holds, under either name (few, labelled). */
async function heldSecrets(ctx: PlacementApiPass): Promise<SecretObject[]> {
  const list = await ctx.client.list<SecretObject>(Kinds.Secret, {
    namespace: ctx.cr.metadata.namespace ?? '',
    labelSelector: `${ApplicationCredentialLabels.all}=true`,
  });
  return list.items.filter((s) => heldBy(s, CONSUMERS));
}

async function release(ctx: PlacementApiPass, secret: SecretObject): Promise<void> {
  for (const f of CONSUMERS)
    if (heldBy(secret, [f])) await releaseFinalizer(ctx.client, Kinds.Secret, secret, f);
}

/**
 * The first half of the hand-over: once placement.conf uses a credential Secret, placement holds it
 * (before the pods roll, so keystone-operator never revokes what a new pod logs in with). A Secret
 * an earlier stackops release held under the old name is held under the new one, then let go of
 * under the old.
 */
export async function holdApplicationCredential(
  ctx: PlacementApiPass,
  used: ApplicationCredentialRead,
): Promise<void> {
  if (used.state !== 'found') return;
  const secret = used.secretObject;
  if (!heldBy(secret, [PLACEMENT_AC_CONSUMER]))
    await holdFinalizer(ctx.client, Kinds.Secret, secret, PLACEMENT_AC_CONSUMER);
  if (heldBy(secret, [EARLIER_AC_CONSUMER]))
    await releaseFinalizer(ctx.client, Kinds.Secret, secret, EARLIER_AC_CONSUMER);
}

/**
 * The second half, after the Deployment is ready with the current config: every other Secret
 * placement held is let go of, and `status.applicationCredentialSecret` becomes the one in use (or
 * goes when the password is used again). Until then the status names the Secret still protected
 * for pods that have not rolled, as upstream's does. Lists Secrets only when the status moves.
 */
export async function handOverApplicationCredential(ctx: PlacementApiPass): Promise<StepResult> {
  const current = ctx.cr.spec.auth?.applicationCredentialSecret || undefined;
  const previous = (ctx.previousStatus as { applicationCredentialSecret?: string } | undefined)
    ?.applicationCredentialSecret;
  if (previous !== current) {
    for (const s of await heldSecrets(ctx)) if (s.metadata.name !== current) await release(ctx, s);
  }
  if (current) ctx.status.applicationCredentialSecret = current;
  else delete ctx.status.applicationCredentialSecret;
  return undefined;
}

/** On deletion: placement holds no credential Secret any more (under either name). */
export async function releaseApplicationCredential(ctx: PlacementApiPass) {
  for (const s of await heldSecrets(ctx)) await release(ctx, s);
  return undefined;
}
