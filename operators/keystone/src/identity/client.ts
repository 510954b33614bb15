import {
  identityV3Url,
  issueSystemTokenOrProject,
  issueToken,
  joinUrl,
  type PasswordCredentials,
  type ScopedToken,
  tokenFromBody,
} from './auth.js';
import { Collection, type IdentityTransport } from './collection.js';
import { isIdentityNotFound, isIdentityUnauthorized } from './errors.js';
import { type HttpOptions, sendJson } from './http.js';
import { RoleAssignments } from './role-assignments.js';
import type {
  Domain,
  DomainCreate,
  DomainFilter,
  DomainUpdate,
  Endpoint,
  EndpointCreate,
  EndpointFilter,
  EndpointUpdate,
  Project,
  ProjectCreate,
  ProjectFilter,
  ProjectUpdate,
  Region,
  RegionCreate,
  RegionFilter,
  RegionUpdate,
  Role,
  RoleCreate,
  RoleFilter,
  RoleUpdate,
  Service,
  ServiceCreate,
  ServiceFilter,
  ServiceUpdate,
  User,
  UserCreate,
  UserFilter,
  UserUpdate,
} from './types.js';

export interface IdentityClientOptions extends PasswordCredentials, HttpOptions {
  /** Keystone's URL, with or without the `/v3` suffix. */
  authUrl: string;
  /**
   * `system` (default): a system-scoped token, falling back to `project` when the user has no system
   * role and a project is named. `project`: always scope to `projectName`.
   */
  scope?: 'system' | 'project';
  projectName?: string;
  projectDomainName?: string;
}

/** Renew a token this long before Keystone says it expires. */
const TOKEN_RENEW_MARGIN_MS = 60_000;

/**
 * A small typed Identity v3 client: password authentication (system scope, project scope fallback),
 * then CRUD on services, endpoints, regions, domains, projects, users, roles and role assignments.
 * The token is cached, renewed before expiry, and re-issued once when Keystone answers 401.
 */
export class IdentityClient {
  readonly services: Collection<Service, ServiceCreate, ServiceUpdate, ServiceFilter>;
  readonly endpoints: Collection<Endpoint, EndpointCreate, EndpointUpdate, EndpointFilter>;
  readonly regions: Collection<Region, RegionCreate, RegionUpdate, RegionFilter>;
  readonly domains: Collection<Domain, DomainCreate, DomainUpdate, DomainFilter>;
  readonly projects: Collection<Project, ProjectCreate, ProjectUpdate, ProjectFilter>;
  readonly users: Collection<User, UserCreate, UserUpdate, UserFilter>;
  readonly roles: Collection<Role, RoleCreate, RoleUpdate, RoleFilter>;
  readonly roleAssignments: RoleAssignments;

  private readonly baseUrl: URL;
  private token: ScopedToken | undefined;
  private pendingToken: Promise<ScopedToken> | undefined;

  constructor(private readonly opts: IdentityClientOptions) {
    this.baseUrl = identityV3Url(opts.authUrl);
    const transport: IdentityTransport = {
      request: (method, path, body) => this.request(method, path, body),
    };
    this.services = new Collection(transport, 'services', 'service');
    this.endpoints = new Collection(transport, 'endpoints', 'endpoint');
    this.regions = new Collection(transport, 'regions', 'region');
    this.domains = new Collection(transport, 'domains', 'domain');
    this.projects = new Collection(transport, 'projects', 'project');
    this.users = new Collection(transport, 'users', 'user');
    this.roles = new Collection(transport, 'roles', 'role');
    this.roleAssignments = new RoleAssignments(transport);
  }

  /** The `/v3` URL requests go to. */
  get url(): string {
    return this.baseUrl.href;
  }

  /** The current token (issued on first use, renewed before it expires). */
  async currentToken(): Promise<ScopedToken> {
    const token = this.token;
    if (token && token.expiresAt.getTime() - TOKEN_RENEW_MARGIN_MS > Date.now()) return token;
    return this.authenticate();
  }

  /** Validates another token (`GET /v3/auth/tokens`); `undefined` when Keystone does not accept it. */
  async validateToken(subjectToken: string): Promise<ScopedToken | undefined> {
    try {
      const res = await this.send('GET', 'auth/tokens', undefined, { 'x-subject-token': subjectToken });
      return tokenFromBody(subjectToken, res.body);
    } catch (err) {
      if (isIdentityNotFound(err) || isIdentityUnauthorized(err)) return undefined;
      throw err;
    }
  }

  /** Checks a user's password by issuing an unscoped token for it; `false` on 401. */
  async passwordWorks(creds: PasswordCredentials): Promise<boolean> {
    try {
      await issueToken(this.opts.authUrl, creds, { unscoped: true }, this.httpOptions());
      return true;
    } catch (err) {
      if (isIdentityUnauthorized(err)) return false;
      throw err;
    }
  }

  /** Authenticated JSON request relative to `/v3`; the parsed body (undefined when empty). */
  async request(
    method: Parameters<IdentityTransport['request']>[0],
    path: string,
    body?: unknown,
  ): Promise<unknown> {
    try {
      return (await this.send(method, path, body)).body;
    } catch (err) {
      // A token revoked or signed with a key Keystone no longer has: one fresh token, one retry.
      if (!isIdentityUnauthorized(err)) throw err;
      this.token = undefined;
      return (await this.send(method, path, body)).body;
    }
  }

  private async send(
    method: Parameters<IdentityTransport['request']>[0],
    path: string,
    body: unknown,
    headers: Record<string, string> = {},
  ) {
    const token = await this.currentToken();
    return sendJson(
      {
        method,
        url: joinUrl(this.baseUrl, path),
        body,
        headers: { 'x-auth-token': token.token, ...headers },
      },
      this.httpOptions(),
    );
  }

  private authenticate(): Promise<ScopedToken> {
    // Concurrent callers share one token request.
    this.pendingToken ??= this.issue().then(
      (token) => {
        this.token = token;
        this.pendingToken = undefined;
        return token;
      },
      (err: unknown) => {
        this.pendingToken = undefined;
        throw err;
      },
    );
    return this.pendingToken;
  }

  private issue(): Promise<ScopedToken> {
    const { authUrl, username, password, userDomainName, projectName, projectDomainName } = this.opts;
    const creds: PasswordCredentials = { username, password, userDomainName };
    const project = projectName ? { name: projectName, domainName: projectDomainName } : undefined;
    if (this.opts.scope === 'project') {
      if (!project) throw new Error('IdentityClient: scope "project" needs projectName');
      return issueToken(authUrl, creds, { project }, this.httpOptions());
    }
    return issueSystemTokenOrProject(authUrl, creds, project, this.httpOptions());
  }

  private httpOptions(): HttpOptions {
    return { caBundle: this.opts.caBundle, timeoutMs: this.opts.timeoutMs };
  }
}
