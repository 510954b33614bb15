import type { IdentityClient } from '../identity/client.js';
import type {
  OwnerMarked,
  Project,
  Role,
  Service,
  ServiceUpdate,
  User,
  UserUpdate,
} from '../identity/types.js';
import { type Claim, claim, isOwnedBy, markerAttribute, notOwned, type Owner, ownerOf } from './ownership.js';

/** Where upstream puts service users: project `service` of domain `default`, roles admin and service. */
const DEFAULT_DOMAIN_ID = 'default';
const DEFAULT_DOMAIN_NAME = 'Default';
const SERVICE_PROJECT = 'service';
const SERVICE_USER_ROLES = ['admin', 'service'] as const;

export interface CatalogServiceSpec {
  type: string;
  name: string;
  description?: string;
  enabled: boolean;
}

/** Where registration writes what it changed in Keystone, in words for Events (never a password). */
export interface Changes {
  push(change: string): unknown;
}

/** At most one match, or an error that says which query was ambiguous. */
function single<T>(items: T[], what: string): T | undefined {
  if (items.length > 1) throw new Error(`multiple ${what} found in keystone (${items.length})`);
  return items[0];
}

function serviceDiff(found: Service, spec: CatalogServiceSpec): ServiceUpdate {
  const patch: ServiceUpdate = {};
  if (found.type !== spec.type) patch.type = spec.type;
  if ((found.name ?? '') !== spec.name) patch.name = spec.name;
  if ((found.description ?? '') !== (spec.description ?? '')) patch.description = spec.description ?? '';
  if (found.enabled !== spec.enabled) patch.enabled = spec.enabled;
  return patch;
}

/** Who registers, and whether it may adopt objects without an owner (ADR 0012). */
export interface Ownership {
  owner: Owner;
  adopt: boolean;
  /** Whether a CR named by a marker is gone (its objects may then be adopted from its namespace). */
  ownerGone?: (owner: Owner) => boolean;
}

/** `claim`, plus: with `adopt`, objects of a CR of the same namespace that no longer exists. */
function claimIn(what: string, obj: OwnerMarked, own: Ownership): Claim {
  const found = ownerOf(obj);
  if (
    own.adopt &&
    found &&
    !isOwnedBy(obj, own.owner) &&
    found.namespace === own.owner.namespace &&
    own.ownerGone?.(found)
  ) {
    return 'mark';
  }
  return claim(what, obj, own.owner, own.adopt);
}

const adopting = (obj: OwnerMarked, own: Ownership): boolean => !isOwnedBy(obj, own.owner);

/**
 * The catalog service of a KeystoneService. The one recorded in `status.serviceID` is updated in
 * place (so a changed type or name renames it instead of leaving the old one behind); without one,
 * or when it was deleted from Keystone, a service of the same type and name is taken if this CR owns
 * it (or adopts it), else a new one is created with the owner marker.
 */
export async function ensureCatalogService(
  identity: IdentityClient,
  spec: CatalogServiceSpec,
  knownId: string | undefined,
  own: Ownership,
  changes: Changes,
): Promise<Service> {
  let found = knownId ? await identity.services.get(knownId) : undefined;
  if (!found) {
    const sameName = (await identity.services.list({ type: spec.type, name: spec.name })).filter(
      (s) => s.name === spec.name && s.type === spec.type,
    );
    found = single(sameName, `services of type ${spec.type} named ${spec.name}`);
  }
  if (!found) {
    const created = await identity.services.create({
      type: spec.type,
      name: spec.name,
      enabled: spec.enabled,
      ...(spec.description !== undefined ? { description: spec.description } : {}),
      ...markerAttribute(own.owner),
    });
    const why = knownId ? ` (${knownId} was deleted from Keystone)` : '';
    changes.push(`created service ${spec.name} (${created.id})${why}`);
    return created;
  }
  const what = `service "${found.name ?? spec.name}" (type ${found.type})`;
  const mark = claimIn(what, found, own) === 'mark';
  const patch: ServiceUpdate = { ...serviceDiff(found, spec), ...(mark ? markerAttribute(own.owner) : {}) };
  if (Object.keys(patch).length === 0) return found;
  const updated = await identity.services.update(found.id, patch);
  if (mark && adopting(found, own)) changes.push(`adopted service ${spec.name} (${found.id})`);
  const fields = Object.keys(serviceDiff(found, spec)).sort();
  if (fields.length > 0) changes.push(`updated service ${spec.name} (${fields.join(', ')})`);
  return updated;
}
async function ensureProject(identity: IdentityClient, name: string, changes: Changes): Promise<Project> {
  const found = single(
    (await identity.projects.list({ name, domain_id: DEFAULT_DOMAIN_ID })).filter((p) => p.name === name),
    `projects named ${name}`,
  );
  if (found) return found;
  const created = await identity.projects.create({ name, domain_id: DEFAULT_DOMAIN_ID, description: name });
  changes.push(`created project ${name}`);
  return created;
}

/** A global role by name (roles are created by keystone's bootstrap; created here when missing). */
async function ensureRole(identity: IdentityClient, name: string, changes: Changes): Promise<Role> {
  const found = (await identity.roles.list({ name })).find((r) => r.name === name && !r.domain_id);
  if (found) return found;
  const created = await identity.roles.create({ name });
  changes.push(`created role ${name}`);
  return created;
}

async function findUser(identity: IdentityClient, name: string): Promise<User | undefined> {
  return single(
    (await identity.users.list({ name, domain_id: DEFAULT_DOMAIN_ID })).filter((u) => u.name === name),
    `users named ${name} in domain ${DEFAULT_DOMAIN_ID}`,
  );
}

export interface ServiceUserSpec {
  username: string;
  password: string;
}

/** What a service user may never be, and with whom it may be shared. */
export interface ServiceUserGuard {
  /** The KeystoneAPI's admin user (`adminUser`) and the user the operator logs in as. */
  adminUsername: string;
  adminUserId: string;
  /**
   * Whether a user owned by another KeystoneService may be used as is (never changed, never
   * deleted): upstream's manila and designate register two services with one user, from the same
   * Secret key of the same namespace.
   */
  mayShare(owner: Owner): boolean;
}

export interface ServiceUserOutcome {
  user: User;
  /** Set when the user belongs to another KeystoneService and is only used (see `mayShare`). */
  sharedWith?: Owner;
}

/**
 * The service user: in domain `default` with default project `service`, enabled, with roles admin
 * and service on that project, owned by this KeystoneService (ADR 0012): the admin user, users of
 * other CRs and users that existed before are refused (NotOwnedError) unless adopted. Unlike
 * upstream, a changed password reaches Keystone: the stored one is checked with a login, and
 * replaced only when that login fails (so a password changed by hand is reset to the Secret's).
 */
export async function ensureServiceUser(
  identity: IdentityClient,
  spec: ServiceUserSpec,
  own: Ownership & { guard: ServiceUserGuard; knownId?: string },
  changes: Changes,
): Promise<ServiceUserOutcome> {
  const what = `user "${spec.username}"`;
  if (spec.username === own.guard.adminUsername) throw notOwned(what, own.owner, 'it is the admin user');
  const found = await findUser(identity, spec.username);
  if (found?.id === own.guard.adminUserId) throw notOwned(what, own.owner, 'it is the admin user');
  let mark = false;
  if (found) {
    try {
      mark = claimIn(what, found, own) === 'mark';
    } catch (err) {
      const other = ownerOf(found);
      if (other?.kind === 'KeystoneService' && own.guard.mayShare(other))
        return { user: found, sharedWith: other };
      throw err;
    }
    if (mark && adopting(found, own)) await refuseSystemUser(identity, found, what, own.owner);
  }
  const project = await ensureProject(identity, SERVICE_PROJECT, changes);
  let user: User;
  if (!found) {
    user = await identity.users.create({
      name: spec.username,
      password: spec.password,
      domain_id: DEFAULT_DOMAIN_ID,
      default_project_id: project.id,
      enabled: true,
      ...markerAttribute(own.owner),
    });
    const why = own.knownId ? ` (${own.knownId} was deleted from Keystone)` : '';
    changes.push(`created user ${spec.username} (${user.id})${why}`);
  } else {
    const patch: UserUpdate = {
      ...(mark ? markerAttribute(own.owner) : {}),
      ...(found.enabled ? {} : { enabled: true }),
    };
    user = Object.keys(patch).length > 0 ? await identity.users.update(found.id, patch) : found;
    if (mark && adopting(found, own)) changes.push(`adopted user ${spec.username} (${found.id})`);
    if (!found.enabled) changes.push(`enabled user ${spec.username} (it was disabled)`);
    const loginWorks = await identity.passwordWorks({
      username: spec.username,
      password: spec.password,
      userDomainName: DEFAULT_DOMAIN_NAME,
    });
    if (!loginWorks) {
      user = await identity.users.update(found.id, { password: spec.password });
      changes.push(
        `reset the password of user ${spec.username} to the Secret's (the stored one did not log in)`,
      );
    }
  }
  const granted = new Set(
    (await identity.roleAssignments.list({ 'user.id': user.id, 'scope.project.id': project.id })).map(
      (a) => a.role.id,
    ),
  );
  for (const roleName of SERVICE_USER_ROLES) {
    const role = await ensureRole(identity, roleName, changes);
    if (granted.has(role.id)) continue;
    await identity.roleAssignments.grant({ projectId: project.id }, user.id, role.id);
    changes.push(`granted role ${roleName} on project ${SERVICE_PROJECT} to user ${spec.username}`);
  }
  return { user };
}

/** Adoption never takes a cloud administrator: a user with any role on the system scope. */
async function refuseSystemUser(identity: IdentityClient, user: User, what: string, owner: Owner) {
  const onSystem = await identity.roleAssignments.list({ 'user.id': user.id, 'scope.system': 'all' });
  if (onSystem.length > 0) throw notOwned(what, owner, 'it has a role on the system scope');
}

/**
 * Deletes the users this owner registered: the one recorded by ID and the one of `name`, each only
 * when its marker names the owner.
 */
export async function deleteOwnedUsers(
  identity: IdentityClient,
  users: { ids: readonly string[]; names: readonly string[] },
  owner: Owner,
  changes: Changes,
  why = '',
): Promise<void> {
  const candidates = new Map<string, User>();
  for (const id of users.ids) {
    const user = id ? await identity.users.get(id) : undefined;
    if (user) candidates.set(user.id, user);
  }
  for (const name of users.names) {
    const user = await findUser(identity, name);
    if (user) candidates.set(user.id, user);
  }
  for (const user of candidates.values()) {
    if (!isOwnedBy(user, owner)) continue;
    if (await identity.users.delete(user.id)) changes.push(`deleted user ${user.name} (${user.id})${why}`);
  }
}

/** Deletes the catalog service (its endpoints go with it) when this owner owns it. */
export async function deleteOwnedService(
  identity: IdentityClient,
  serviceId: string,
  owner: Owner,
  changes: Changes,
): Promise<void> {
  const service = serviceId ? await identity.services.get(serviceId) : undefined;
  if (!service || !isOwnedBy(service, owner)) return;
  if (await identity.services.delete(service.id)) {
    changes.push(`deleted service ${service.name ?? ''} (${service.id})`);
  }
}
