/** Reason used when no HTTP response came back (refused, reset, TLS failure, timeout). */
const IDENTITY_CONNECTION_ERROR = 'ConnectionError';

export interface IdentityErrorInit {
  /** HTTP status; 0 when the request never got a response. */
  status: number;
  method: string;
  /** Path and query of the request (never the host's credentials, never a body). */
  path: string;
  /** Keystone's own message (`error.message` of its JSON body), or the transport error. */
  message: string;
  /** Keystone's `error.title` (e.g. `Not Found`), or a short reason such as `ConnectionError`. */
  title?: string;
  cause?: unknown;
}

/**
 * The one error type of the Identity v3 client: what failed (method and path), how (HTTP status and
 * Keystone's title) and Keystone's message. Request bodies are never included: they carry passwords.
 */
export class IdentityError extends Error {
  override readonly name = 'IdentityError';
  readonly status: number;
  readonly method: string;
  readonly path: string;
  readonly title: string;
  readonly keystoneMessage: string;

  constructor(init: IdentityErrorInit) {
    const title = init.title ?? (init.status === 0 ? IDENTITY_CONNECTION_ERROR : `HTTP ${init.status}`);
    const code = init.status === 0 ? title : `${init.status} ${title}`;
    super(`keystone ${init.method} ${init.path}: ${code}: ${init.message}`, { cause: init.cause });
    this.status = init.status;
    this.method = init.method;
    this.path = init.path;
    this.title = title;
    this.keystoneMessage = init.message;
  }
}

/** Keystone answered 404 (lib-common's `isNotFound` is the Kubernetes API's). */
export function isIdentityNotFound(err: unknown): boolean {
  return err instanceof IdentityError && err.status === 404;
}

/** Keystone answered 401: the token or the credentials are not (or no longer) valid. */
export function isIdentityUnauthorized(err: unknown): boolean {
  return err instanceof IdentityError && err.status === 401;
}
