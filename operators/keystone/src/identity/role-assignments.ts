import type { IdentityTransport } from './collection.js';
import { queryString } from './collection.js';
import { isIdentityNotFound } from './errors.js';
import type { AssignmentTarget, RoleAssignment, RoleAssignmentFilter } from './types.js';

function grantPath(target: AssignmentTarget, userId: string, roleId: string): string {
  const user = encodeURIComponent(userId);
  const role = encodeURIComponent(roleId);
  if ('projectId' in target)
    return `projects/${encodeURIComponent(target.projectId)}/users/${user}/roles/${role}`;
  if ('domainId' in target)
    return `domains/${encodeURIComponent(target.domainId)}/users/${user}/roles/${role}`;
  return `system/users/${user}/roles/${role}`;
}

/** Role grants to users on a project, a domain or the system, and the `role_assignments` listing. */
export class RoleAssignments {
  constructor(private readonly transport: IdentityTransport) {}

  async list(filter?: RoleAssignmentFilter): Promise<RoleAssignment[]> {
    const body = (await this.transport.request('GET', `role_assignments${queryString(filter)}`)) as
      | { role_assignments?: RoleAssignment[] }
      | undefined;
    return body?.role_assignments ?? [];
  }

  /** Idempotent: granting an existing assignment succeeds. */
  async grant(target: AssignmentTarget, userId: string, roleId: string): Promise<void> {
    await this.transport.request('PUT', grantPath(target, userId, roleId));
  }

  async check(target: AssignmentTarget, userId: string, roleId: string): Promise<boolean> {
    try {
      await this.transport.request('HEAD', grantPath(target, userId, roleId));
      return true;
    } catch (err) {
      if (isIdentityNotFound(err)) return false;
      throw err;
    }
  }

  /** Resolves `false` when there was no such assignment. */
  async revoke(target: AssignmentTarget, userId: string, roleId: string): Promise<boolean> {
    try {
      await this.transport.request('DELETE', grantPath(target, userId, roleId));
      return true;
    } catch (err) {
      if (isIdentityNotFound(err)) return false;
      throw err;
    }
  }
}
