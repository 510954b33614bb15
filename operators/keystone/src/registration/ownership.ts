import { OWNER_ATTRIBUTE, type OwnerMarked } from '../identity/types.js';

/**
 * Who owns a Keystone user, service or endpoint (ADR 0012): the custom resource that created or
 * deliberately adopted it, written into the object as the extra attribute `stackops_owner` =
 * `<Kind>/<namespace>/<name>/<uid>`. A KeystoneService/KeystoneEndpoint only changes or deletes
 * objects whose marker names it; ownership goes by kind, namespace and name (a re-created CR of the
 * same name takes its objects back, and the marker gets its new uid).
 */
export interface Owner {
  kind: 'KeystoneService' | 'KeystoneEndpoint';
  namespace: string;
  name: string;
  uid: string;
}

/** The annotation with which a user deliberately adopts objects that have no owner (value `"true"`). */
export const ADOPT_ANNOTATION = 'keystone.openstack.org/adopt';

export const markerOf = (owner: Owner): string =>
  `${owner.kind}/${owner.namespace}/${owner.name}/${owner.uid}`;

/** The owner named by an object's marker; undefined when it has none (or a marker not of this form). */
export function ownerOf(obj: OwnerMarked): Owner | undefined {
  const value = obj[OWNER_ATTRIBUTE];
  const parts = typeof value === 'string' ? value.split('/') : [];
  const [kind, namespace, name, uid] = parts;
  if (parts.length !== 4 || !namespace || !name) return undefined;
  if (kind !== 'KeystoneService' && kind !== 'KeystoneEndpoint') return undefined;
  return { kind, namespace, name, uid: uid ?? '' };
}

type OwnerName = Pick<Owner, 'kind' | 'namespace' | 'name'>;

const sameOwner = (a: OwnerName, b: OwnerName): boolean =>
  a.kind === b.kind && a.namespace === b.namespace && a.name === b.name;

/** Whether the marker names this owner (kind, namespace, name). */
export const isOwnedBy = (obj: OwnerMarked, owner: OwnerName): boolean => {
  const found = ownerOf(obj);
  return found !== undefined && sameOwner(found, owner);
};

export const describeOwner = (o: OwnerName): string => `${o.kind} ${o.namespace}/${o.name}`;

/**
 * A Keystone object this CR may not touch. The message names the object and why (another owner,
 * no owner, the admin user); it is the condition's message and the Warning Event's. Its parts are
 * kept apart so a condition can quote each (lib-common cuts long arguments, not the sentence).
 */
export class NotOwnedError extends Error {
  override readonly name = 'NotOwnedError';
  constructor(
    readonly what: string,
    readonly ownerKind: string,
    readonly why: string,
  ) {
    super(`${what} is not owned by this ${ownerKind} (${why})`);
  }
}

export const isNotOwned = (err: unknown): err is NotOwnedError => err instanceof NotOwnedError;

/** `user "admin" is not owned by this KeystoneService (<why>)`. */
export const notOwned = (what: string, owner: Owner, why: string): NotOwnedError =>
  new NotOwnedError(what, owner.kind, why);

/** What a CR may do with an object it found: use it as its own, or first write its marker on it. */
export type Claim = 'owned' | 'mark';

/**
 * Decides whether `owner` may manage `obj`: its own marker → `owned` (`mark` when the uid is a
 * previous incarnation's); no marker and `adopt` → `mark`; anything else throws NotOwnedError.
 */
export function claim(what: string, obj: OwnerMarked, owner: Owner, adopt: boolean): Claim {
  const found = ownerOf(obj);
  if (found && sameOwner(found, owner)) return found.uid === owner.uid ? 'owned' : 'mark';
  if (found) throw notOwned(what, owner, `it belongs to ${describeOwner(found)}`);
  if (adopt) return 'mark';
  throw notOwned(what, owner, `no owner; annotate ${ADOPT_ANNOTATION}: "true" to adopt it`);
}

/** The marker attribute to write with a create or an update. */
export const markerAttribute = (owner: Owner): OwnerMarked => ({ [OWNER_ATTRIBUTE]: markerOf(owner) });
