import type { KindRef, KubeObject } from '@stackops/lib-common/client';
import { Conditions, Reason, Severity } from '@stackops/lib-common/conditions';
import { stop } from '@stackops/lib-common/pipeline';
import { KeystoneKinds } from '../../api/group.js';
import { ADOPT_ANNOTATION, type NotOwnedError, type Owner } from '../../registration/ownership.js';
import type { Ownership } from '../../registration/service.js';
import type { DependantPass } from './context.js';

const kindRefOf = (kind: Owner['kind']): KindRef =>
  kind === 'KeystoneService' ? KeystoneKinds.KeystoneService : KeystoneKinds.KeystoneEndpoint;

/** The CR of a pass as the owner its Keystone objects are marked with. */
const ownerOfCr = (kind: Owner['kind'], cr: KubeObject): Owner => ({
  kind,
  namespace: cr.metadata.namespace ?? '',
  name: cr.metadata.name ?? '',
  uid: cr.metadata.uid ?? '',
});

/**
 * The pass's ownership: itself, whether `keystone.openstack.org/adopt: "true"` asks to adopt objects
 * without an owner, and — for adoption from its own namespace only — whether a marker's CR is gone.
 */
export function ownershipOf(ctx: DependantPass<KubeObject, object>, kind: Owner['kind']): Ownership {
  return {
    owner: ownerOfCr(kind, ctx.cr),
    adopt: ctx.cr.metadata.annotations?.[ADOPT_ANNOTATION] === 'true',
    ownerGone: (o) =>
      ctx.cache.get(kindRefOf(o.kind), { namespace: o.namespace, name: o.name }) === undefined,
  };
}

/**
 * A refused Keystone object: the step's condition False (severity Error) with the message naming the
 * conflict, a Warning `NotOwned` Event, one log line; the pass ends (the resync looks again, so it
 * recovers once the conflict is gone).
 */
export function refuse(ctx: DependantPass<KubeObject, object>, type: string, err: NotOwnedError) {
  ctx.conditions.markFalse(
    type,
    Reason.Error,
    Severity.Error,
    '%s is not owned by this %s (%s)',
    err.what,
    err.ownerKind,
    err.why,
  );
  const before = Conditions.from(
    (ctx.previousStatus as { conditions?: unknown } | undefined)?.conditions,
  ).get(type);
  // Announced once per refusal, not on every resync that finds it unchanged.
  const message = ctx.conditions.get(type)?.message ?? err.message;
  if (before?.status !== 'False' || before.message !== message) {
    ctx.event('Warning', 'NotOwned', message);
    ctx.log.warn({ refused: message }, 'refused a Keystone object it does not own');
  }
  return stop();
}
