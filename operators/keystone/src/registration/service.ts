import type { IdentityClient } from '../identity/client.js';
import type { Project, Role, Service, User } from '../identity/types.js';

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

function serviceDiff(found: Service, spec: CatalogServiceSpec): Partial<CatalogServiceSpec> {
  const patch: Partial<CatalogServiceSpec> = {};
  if (found.type !== spec.type) patch.type = spec.type;
  if ((found.name ?? '') !== spec.name) patch.name = spec.name;
  if ((found.description ?? '') !== (spec.description ?? '')) patch.description = spec.description ?? '';
  if (found.enabled !== spec.enabled) patch.enabled = spec.enabled;
  return patch;
}

/**
 * The catalog service of a KeystoneService. The one recorded in `status.serviceID` is updated in
 * place (so a changed type or name renames it instead of leaving the old one behind); without one,
 * a service of the same type and name is adopted, or a new one created.
 */
export async function ensureCatalogService(
  identity: IdentityClient,
  spec: CatalogServiceSpec,
  knownId: string | undefined,
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
    });
    changes.push(`created service ${spec.name} (${created.id})`);
    return created;
  }
  const patch = serviceDiff(found, spec);
  if (Object.keys(patch).length === 0) return found;
  const updated = await identity.services.update(found.id, patch);
  changes.push(`updated service ${spec.name} (${Object.keys(patch).sort().join(', ')})`);
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

/**
 * The service user: in domain `default` with default project `service`, enabled, with roles admin
 * and service on that project. Unlike upstream, a changed password reaches Keystone: the stored one
 * is checked with a login, and replaced only when that login fails.
 */
export async function ensureServiceUser(
  identity: IdentityClient,
  spec: ServiceUserSpec,
  changes: Changes,
): Promise<User> {
  const project = await ensureProject(identity, SERVICE_PROJECT, changes);
  let user = await findUser(identity, spec.username);
  if (!user) {
    user = await identity.users.create({
      name: spec.username,
      password: spec.password,
      domain_id: DEFAULT_DOMAIN_ID,
      default_project_id: project.id,
      enabled: true,
    });
    changes.push(`created user ${spec.username}`);
  } else {
    if (!user.enabled) {
      user = await identity.users.update(user.id, { enabled: true });
      changes.push(`enabled user ${spec.username}`);
    }
    const loginWorks = await identity.passwordWorks({
      username: spec.username,
      password: spec.password,
      userDomainName: DEFAULT_DOMAIN_NAME,
    });
    if (!loginWorks) {
      user = await identity.users.update(user.id, { password: spec.password });
      changes.push(`updated the password of user ${spec.username}`);
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
  return user;
}

/** Deletes a user of domain `default` by name, if it exists. */
export async function deleteUserNamed(
  identity: IdentityClient,
  name: string,
  changes: Changes,
): Promise<void> {
  const user = await findUser(identity, name);
  if (user && (await identity.users.delete(user.id))) changes.push(`deleted user ${name}`);
}

/** Removes the users (their role assignments go with them) and the catalog service (its endpoints too). */
export async function deleteServiceRegistration(
  identity: IdentityClient,
  reg: { serviceId: string; usernames: readonly string[] },
  changes: Changes,
): Promise<void> {
  for (const name of new Set(reg.usernames)) await deleteUserNamed(identity, name, changes);
  if (reg.serviceId && (await identity.services.delete(reg.serviceId))) {
    changes.push(`deleted service ${reg.serviceId}`);
  }
}
