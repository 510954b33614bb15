import type { EndpointInterface } from '../api/keystone-endpoint.js';

/**
 * The extra attribute Keystone stores on users, services and endpoints (it keeps unknown top-level
 * attributes and returns them) naming the custom resource that created the object (ADR 0012).
 */
export const OWNER_ATTRIBUTE = 'stackops_owner';

/** Users, services and endpoints carry the owner marker when this operator created (or adopted) them. */
export interface OwnerMarked {
  [OWNER_ATTRIBUTE]?: string | null;
}

/**
 * Identity v3 resources as Keystone sends and accepts them. Field names are Keystone's own (snake_case),
 * so a payload reads exactly like the API reference.
 */

export interface Service extends OwnerMarked {
  id: string;
  type: string;
  name?: string;
  description?: string;
  enabled: boolean;
}
export interface ServiceCreate extends OwnerMarked {
  type: string;
  name: string;
  description?: string;
  enabled?: boolean;
}
export type ServiceUpdate = Partial<ServiceCreate>;
export interface ServiceFilter {
  type?: string;
  name?: string;
}

export interface Endpoint extends OwnerMarked {
  id: string;
  service_id: string;
  interface: EndpointInterface;
  url: string;
  region_id?: string | null;
  region?: string | null;
  enabled: boolean;
}
export interface EndpointCreate extends OwnerMarked {
  service_id: string;
  interface: EndpointInterface;
  url: string;
  region_id?: string;
  enabled?: boolean;
}
export type EndpointUpdate = Partial<EndpointCreate>;
export interface EndpointFilter {
  service_id?: string;
  interface?: EndpointInterface;
  region_id?: string;
}

export interface Region {
  id: string;
  description?: string;
  parent_region_id?: string | null;
}
export interface RegionCreate {
  /** Keystone accepts a caller-chosen id such as `regionOne`. */
  id: string;
  description?: string;
  parent_region_id?: string;
}
export type RegionUpdate = Partial<Omit<RegionCreate, 'id'>>;
export interface RegionFilter {
  parent_region_id?: string;
}

export interface Domain {
  id: string;
  name: string;
  description?: string;
  enabled: boolean;
}
export interface DomainCreate {
  name: string;
  description?: string;
  enabled?: boolean;
}
export type DomainUpdate = Partial<DomainCreate>;
export interface DomainFilter {
  name?: string;
  enabled?: boolean;
}

export interface Project {
  id: string;
  name: string;
  domain_id: string;
  description?: string;
  enabled: boolean;
  parent_id?: string | null;
  is_domain?: boolean;
}
export interface ProjectCreate {
  name: string;
  domain_id?: string;
  description?: string;
  enabled?: boolean;
  parent_id?: string;
}
export type ProjectUpdate = Partial<Omit<ProjectCreate, 'domain_id' | 'parent_id'>>;
export interface ProjectFilter {
  name?: string;
  domain_id?: string;
  enabled?: boolean;
  parent_id?: string;
}

export interface User extends OwnerMarked {
  id: string;
  name: string;
  domain_id: string;
  enabled: boolean;
  default_project_id?: string;
  description?: string;
  password_expires_at?: string | null;
}
export interface UserCreate extends OwnerMarked {
  name: string;
  domain_id?: string;
  password?: string;
  default_project_id?: string;
  description?: string;
  enabled?: boolean;
}
export type UserUpdate = Partial<Omit<UserCreate, 'domain_id'>>;
export interface UserFilter {
  name?: string;
  domain_id?: string;
  enabled?: boolean;
}

export interface Role {
  id: string;
  name: string;
  domain_id?: string | null;
  description?: string;
}
export interface RoleCreate {
  name: string;
  domain_id?: string;
  description?: string;
}
export type RoleUpdate = Partial<Omit<RoleCreate, 'domain_id'>>;
export interface RoleFilter {
  name?: string;
  domain_id?: string;
}

/** One row of `GET /v3/role_assignments`. */
export interface RoleAssignment {
  role: { id: string; name?: string };
  user?: { id: string; name?: string };
  group?: { id: string; name?: string };
  scope: {
    project?: { id: string; name?: string };
    domain?: { id: string; name?: string };
    system?: { all: boolean };
  };
}
export interface RoleAssignmentFilter {
  'user.id'?: string;
  'group.id'?: string;
  'role.id'?: string;
  'scope.project.id'?: string;
  'scope.domain.id'?: string;
  'scope.system'?: 'all';
  effective?: boolean;
  include_names?: boolean;
}

/** Where a role is granted to a user. */
export type AssignmentTarget = { projectId: string } | { domainId: string } | { system: 'all' };
