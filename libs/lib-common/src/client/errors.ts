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
/**
 * A JSON Patch whose `test` operation failed: the API server answers 422 Invalid with its generic
 * message and no causes (a real validation failure always names its fields).
 */
export const isPatchTestFailed = (e: unknown): boolean =>
  isApiError(e) &&
  e.code === 422 &&
  (e.verb === undefined || e.verb === 'PATCH') &&
  (e.details?.causes ?? []).length === 0 &&
  !e.details?.name &&
  e.statusMessage === 'the server rejected our request due to an error in our request';
/** Optimistic-concurrency conflict (stale resourceVersion, failed JSON Patch `test`, SSA conflict). */
export const isConflict = (e: unknown): boolean =>
  isApiError(e) && ((e.code === 409 && e.reason !== 'AlreadyExists') || isPatchTestFailed(e));
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
  return e.code === 0 || e.code === 409 || e.code === 429 || e.code >= 500 || isPatchTestFailed(e);
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

/** Longest value (a name, a field's value) a user-facing message quotes whole. */
export const MAX_VALUE_LENGTH = 24;

/** `value` cut to `max` characters, the cut marked with `…`. */
export function shortValue(value: string, max = MAX_VALUE_LENGTH): string {
  return value.length <= max ? value : `${value.slice(0, Math.max(1, max - 1))}…`;
}

/**
 * A server or library message made fit for a condition or an Event: no `(VERB /path?query)`
 * suffix, no URLs, no regular expressions or examples the API server appends, quoted values cut.
 */
export function cleanMessage(text: string): string {
  return text
    .replace(/\s*\((?:GET|LIST|WATCH|POST|PUT|PATCH|DELETE|APPLY|CREATE|UPDATE)\s+\/[^)]*\)/gi, '')
    .replace(/\b(?:GET|POST|PUT|PATCH|DELETE)\s+\/\S*/g, '')
    .replace(/\bhttps?:\/\/\S+/gi, '')
    .replace(/\s*\(e\.g\.[\s\S]*$/, '')
    .replace(/\bInvalid value: "/g, '"')
    .replace(/"([^"]*)"/g, (_m, v: string) => `"${shortValue(v)}"`)
    .replace(/\s{2,}/g, ' ')
    .trim();
}

/** The object an API error is about (`Job keystone-db-create`), from its details or its request path. */
export function errorSubject(e: unknown): { kind?: string; name?: string } {
  if (!isApiError(e)) return {};
  const kind = e.details?.kind;
  const name = e.details?.name;
  if (kind || name) return { ...(kind ? { kind } : {}), ...(name ? { name } : {}) };
  // …/namespaces/<ns>/<plural>/<name>[/<subresource>] or …/<plural>/<name>
  const parts = (e.path ?? '').split('?')[0]?.split('/').filter(Boolean) ?? [];
  const ns = parts.indexOf('namespaces');
  const rest =
    ns >= 0 && parts.length > ns + 2 ? parts.slice(ns + 2) : parts.slice(parts[0] === 'api' ? 2 : 3);
  const [plural, objectName] = rest;
  return { ...(plural ? { kind: plural } : {}), ...(objectName ? { name: objectName } : {}) };
}

/**
 * What the API server said is wrong, for a user: each cause as `field: message` (duplicates once),
 * or the server's message, cleaned by `cleanMessage`. Never the request's verb or URL.
 */
export function errorDetail(e: unknown): string {
  if (!isApiError(e)) return cleanMessage(e instanceof Error ? e.message : String(e));
  const seen = new Set<string>();
  const causes: string[] = [];
  for (const c of e.details?.causes ?? []) {
    const text = cleanMessage(`${c.field ? `${c.field}: ` : ''}${c.message ?? c.type ?? ''}`);
    if (text && !seen.has(text)) {
      seen.add(text);
      causes.push(text);
    }
  }
  if (causes.length > 0) return causes.join('; ');
  return cleanMessage(afterSubject(e.statusMessage) || e.statusMessage);
}

/**
 * "Job.batch "x" is invalid: …" / "jobs.batch "x" is forbidden: …": the part after the subject; empty
 * when the subject says it all (`namespaces "x" not found`), and the whole message is the detail.
 */
function afterSubject(statusMessage: string): string {
  const m = /^\S+ "[^"]*" (?:is (?:invalid|forbidden)|already exists|not found)(?::\s*)?/.exec(statusMessage);
  return (m ? statusMessage.slice(m[0].length) : statusMessage).trim();
}

/** An error told in one line for a user: `Job x: spec.field: problem` for an API error, else its cleaned message. */
export function describeError(e: unknown): string {
  if (!isApiError(e)) return errorDetail(e);
  if (e.code === 0) return cleanMessage(e.statusMessage);
  const { kind, name } = errorSubject(e);
  const subject = [kind, name ? shortValue(name) : undefined].filter(Boolean).join(' ');
  const detail = errorDetail(e);
  // The message is only its subject (a missing namespace): say it once.
  if ((e.details?.causes ?? []).length === 0 && afterSubject(e.statusMessage) === '') return detail;
  return subject ? `${subject}: ${detail}` : detail;
}
