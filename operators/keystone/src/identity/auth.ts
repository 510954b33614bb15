import { IdentityError, isIdentityUnauthorized } from './errors.js';
import { type HttpOptions, sendJson } from './http.js';

export interface PasswordCredentials {
  username: string;
  password: string;
  /** Domain of the user (by name); default `Default`. */
  userDomainName?: string;
}

export type TokenScope =
  | { system: 'all' }
  | { project: { name: string; domainName?: string } }
  | { project: { id: string } }
  | { unscoped: true };

export interface ScopedToken {
  /** The X-Subject-Token value. */
  token: string;
  expiresAt: Date;
  scope: 'system' | 'project' | 'unscoped';
  user: { id: string; name: string };
  project?: { id: string; name: string };
}

const DEFAULT_DOMAIN_NAME = 'Default';

/**
 * Keystone's versioned base URL. The KeystoneAPI status carries `http://keystone-internal.<ns>.svc:5000`
 * (no version), while clouds.yaml users often write `.../v3`; both end up as `<url>/v3`.
 */
export function identityV3Url(authUrl: string): URL {
  const url = new URL(authUrl);
  const path = url.pathname.replace(/\/+$/, '');
  url.pathname = path.endsWith('/v3') ? path : `${path}/v3`;
  url.search = '';
  url.hash = '';
  return url;
}

/** `base` + relative path; keeps the base path (`new URL('x', base)` would drop its last segment). */
export function joinUrl(base: URL, path: string): URL {
  const url = new URL(base.href);
  const [pathname, search] = path.split('?', 2);
  url.pathname = `${base.pathname.replace(/\/+$/, '')}/${(pathname ?? '').replace(/^\/+/, '')}`;
  url.search = search ? `?${search}` : '';
  return url;
}

function scopeBody(scope: TokenScope): Record<string, unknown> | undefined {
  if ('unscoped' in scope) return undefined;
  if ('system' in scope) return { system: { all: true } };
  const project = scope.project;
  if ('id' in project) return { project: { id: project.id } };
  return { project: { name: project.name, domain: { name: project.domainName ?? DEFAULT_DOMAIN_NAME } } };
}

export function passwordAuthBody(creds: PasswordCredentials, scope: TokenScope): Record<string, unknown> {
  const identity = {
    methods: ['password'],
    password: {
      user: {
        name: creds.username,
        domain: { name: creds.userDomainName ?? DEFAULT_DOMAIN_NAME },
        password: creds.password,
      },
    },
  };
  const scopeJson = scopeBody(scope);
  return { auth: scopeJson ? { identity, scope: scopeJson } : { identity } };
}

interface TokenBody {
  token?: {
    expires_at?: string;
    user?: { id?: string; name?: string };
    project?: { id?: string; name?: string };
    system?: unknown;
  };
}

/** The token described by a `{"token": {...}}` body, or undefined when the body is not one. */
export function tokenFromBody(subject: string | undefined, body: unknown): ScopedToken | undefined {
  const token = (body as TokenBody | undefined)?.token;
  if (!subject || !token?.expires_at || !token.user?.id) return undefined;
  const result: ScopedToken = {
    token: subject,
    expiresAt: new Date(token.expires_at),
    scope: token.system ? 'system' : token.project ? 'project' : 'unscoped',
    user: { id: token.user.id, name: token.user.name ?? '' },
  };
  if (token.project?.id) result.project = { id: token.project.id, name: token.project.name ?? '' };
  return result;
}

/** `POST /v3/auth/tokens` with the password method. */
export async function issueToken(
  authUrl: string,
  creds: PasswordCredentials,
  scope: TokenScope,
  opts: HttpOptions = {},
): Promise<ScopedToken> {
  const url = joinUrl(identityV3Url(authUrl), 'auth/tokens');
  const res = await sendJson({ method: 'POST', url, body: passwordAuthBody(creds, scope) }, opts);
  const subject = res.headers['x-subject-token'];
  const token = tokenFromBody(typeof subject === 'string' ? subject : undefined, res.body);
  if (!token) {
    throw new IdentityError({
      status: 502,
      method: 'POST',
      path: url.pathname,
      title: 'Bad Gateway',
      message: 'Keystone answered without a token',
    });
  }
  return token;
}

/**
 * A system-scoped token (what upstream's admin client asks for), or — when the user has no role on
 * the system and `fallbackProject` is given — a token scoped to that project.
 */
export async function issueSystemTokenOrProject(
  authUrl: string,
  creds: PasswordCredentials,
  fallbackProject: { name: string; domainName?: string } | undefined,
  opts: HttpOptions = {},
): Promise<ScopedToken> {
  try {
    return await issueToken(authUrl, creds, { system: 'all' }, opts);
  } catch (err) {
    if (!fallbackProject || !isIdentityUnauthorized(err)) throw err;
    return issueToken(authUrl, creds, { project: fallbackProject }, opts);
  }
}
