/** The `details` of a v1.Status body (which field of which object failed, and why). */
export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: { type?: string; message?: string; field?: string }[];
  retryAfterSeconds?: number;
}

/** Reason used when no HTTP response came back at all (refused, reset, TLS, timeout). */
export const CONNECTION_ERROR = 'ConnectionError';
export const CLIENT_TIMEOUT = 'ClientTimeout';

export interface ApiErrorInit {
  code: number;
  reason: string;
  message: string;
  details?: StatusDetails;
  verb?: string;
  path?: string;
  cause?: unknown;
}

/**
 * The one error type for Kubernetes API failures. `code` is the HTTP status (0 when the request
 * never got a response); `reason` and `message` come from the v1.Status body when there is one.
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly code: number;
  readonly reason: string;
  readonly details: StatusDetails | undefined;
  readonly verb: string | undefined;
  readonly path: string | undefined;
  /** The server's own message, without the code/reason prefix. */
  readonly statusMessage: string;

  constructor(init: ApiErrorInit) {
    const where = init.verb && init.path ? ` (${init.verb} ${init.path})` : '';
    super(`${init.code} ${init.reason}: ${init.message}${where}`, { cause: init.cause });
    this.code = init.code;
    this.reason = init.reason;
    this.details = init.details;
    this.verb = init.verb;
    this.path = init.path;
    this.statusMessage = init.message;
  }
}

const defaultReasons: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  406: 'NotAcceptable',
  409: 'Conflict',
  410: 'Expired',
  415: 'UnsupportedMediaType',
  422: 'Invalid',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
  504: 'Timeout',
};

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Builds an ApiError from an HTTP status and a response body. The body is a v1.Status in JSON for
 * every API error, but proxies and old servers may send text: then the text is the message.
 */
export function apiErrorFromResponse(
  code: number,
  body: string | Record<string, unknown> | undefined,
  where: { verb?: string; path?: string } = {},
): ApiError {
  let status: Record<string, unknown> | undefined;
  if (isRecord(body)) status = body;
  else if (typeof body === 'string' && body.trim().startsWith('{')) {
    try {
      const parsed: unknown = JSON.parse(body);
      if (isRecord(parsed)) status = parsed;
    } catch {
      status = undefined;
    }
  }
  const statusCode = typeof status?.['code'] === 'number' ? status['code'] : code;
  const reason =
    typeof status?.['reason'] === 'string' && status['reason'] !== ''
      ? status['reason']
      : (defaultReasons[statusCode] ?? 'Unknown');
  const message =
    typeof status?.['message'] === 'string'
      ? status['message']
      : typeof body === 'string' && body.trim() !== ''
        ? body.trim().slice(0, 500)
        : reason;
  const details = isRecord(status?.['details']) ? (status['details'] as StatusDetails) : undefined;
  return new ApiError({ code: statusCode, reason, message, ...(details ? { details } : {}), ...where });
}

const isApiError = (e: unknown): e is ApiError => e instanceof ApiError;

export const isNotFound = (e: unknown): boolean => isApiError(e) && e.code === 404;
/** Optimistic-concurrency conflict (stale resourceVersion, failed JSON Patch `test`, SSA conflict). */
export const isConflict = (e: unknown): boolean =>
  isApiError(e) && e.code === 409 && e.reason !== 'AlreadyExists';
export const isAlreadyExists = (e: unknown): boolean => isApiError(e) && e.reason === 'AlreadyExists';
/** The resourceVersion is too old (compacted): relist. */
export const isGone = (e: unknown): boolean =>
  isApiError(e) && (e.code === 410 || e.reason === 'Expired' || e.reason === 'Gone');
export const isInvalid = (e: unknown): boolean => isApiError(e) && (e.code === 422 || e.reason === 'Invalid');
export const isBadRequest = (e: unknown): boolean => isApiError(e) && e.code === 400;
export const isForbidden = (e: unknown): boolean => isApiError(e) && e.code === 403;
export const isUnauthorized = (e: unknown): boolean => isApiError(e) && e.code === 401;
export const isTooManyRequests = (e: unknown): boolean => isApiError(e) && e.code === 429;
export const isConnectionError = (e: unknown): boolean => isApiError(e) && e.code === 0;

/** Worth retrying as is: no response, throttling, server-side trouble, or a conflict. */
export function isTransient(e: unknown): boolean {
  if (!isApiError(e)) return false;
  return e.code === 0 || e.code === 409 || e.code === 429 || e.code >= 500;
}

/**
 * A write refused because its namespace is being deleted (403 with the `NamespaceTerminating`
 * cause). The object's own deletion follows; retrying the write only spins.
 */
export function isNamespaceTerminating(e: unknown): boolean {
  if (!isApiError(e) || e.code !== 403) return false;
  return (
    (e.details?.causes ?? []).some((c) => c.type === 'NamespaceTerminating') ||
    e.statusMessage.includes('because it is being terminated')
  );
}
