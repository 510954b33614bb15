import {
  ApiError,
  cleanMessage,
  errorDetail,
  errorSubject,
  isConflict,
  isConnectionError,
  isNamespaceTerminating,
  shortValue,
} from '../client/errors.js';
import { Severity } from './catalog.js';

/** Longest condition message (and so MESSAGE column) this library writes; longer ones are cut with `…`. */
export const MAX_MESSAGE_LENGTH = 200;

/** `text` cut to `MAX_MESSAGE_LENGTH` characters, the cut marked with `…`. */
export function cutMessage(text: string, max = MAX_MESSAGE_LENGTH): string {
  return shortValue(text, max);
}

/** How a failure is told to the user: the condition's severity and message, and the Event's reason. */
export interface FailureMessage {
  /** `Error`: the user's input or the cluster refused what was built (fix something); `Warning`: will be retried. */
  severity: typeof Severity.Error | typeof Severity.Warning;
  /** The Warning Event's reason. */
  eventReason: string;
  /** Short, human, naming the object and field; no HTTP verbs, URLs or query strings; at most `MAX_MESSAGE_LENGTH`. */
  message: string;
}

interface FailureTemplate {
  severity: FailureMessage['severity'];
  eventReason: string;
  /** `%s` placeholders: the object (`Job keystone-db-create`), then the API server's detail. */
  template: string;
}

/**
 * The one table of failure messages, by the API status reason of the error. Reasons missing here
 * use `Unknown`. `Error` severity: nothing changes until the user (or an administrator) does
 * something; `Warning`: the operator retries on its own.
 */
export const FailureMessages: Readonly<Record<string, FailureTemplate>> = {
  Invalid: {
    severity: Severity.Error,
    eventReason: 'InvalidObject',
    template: '%s is invalid: %s',
  },
  BadRequest: {
    severity: Severity.Error,
    eventReason: 'InvalidObject',
    template: '%s is invalid: %s',
  },
  Forbidden: { severity: Severity.Error, eventReason: 'Forbidden', template: '%s forbidden: %s' },
  Unauthorized: {
    severity: Severity.Error,
    eventReason: 'Unauthorized',
    template: 'not authorised to write %s',
  },
  NotFound: { severity: Severity.Error, eventReason: 'NotFound', template: '%s not found' },
  AlreadyExists: {
    severity: Severity.Error,
    eventReason: 'AlreadyExists',
    template: '%s already exists and belongs to someone else',
  },
  MethodNotAllowed: {
    severity: Severity.Error,
    eventReason: 'InvalidObject',
    template: '%s cannot be written: %s',
  },
  RequestEntityTooLarge: {
    severity: Severity.Error,
    eventReason: 'InvalidObject',
    template: '%s is too large: %s',
  },
  Conflict: {
    severity: Severity.Warning,
    eventReason: 'Conflict',
    template: '%s changed while being written; retrying',
  },
  TooManyRequests: {
    severity: Severity.Warning,
    eventReason: 'ApiServerBusy',
    template: 'the API server is throttling writes of %s; retrying',
  },
  ServiceUnavailable: {
    severity: Severity.Warning,
    eventReason: 'ApiServerError',
    template: 'the API server could not handle %s (unavailable); retrying',
  },
  InternalError: {
    severity: Severity.Warning,
    eventReason: 'ApiServerError',
    template: 'the API server failed on %s: %s; retrying',
  },
  Timeout: {
    severity: Severity.Warning,
    eventReason: 'ApiServerError',
    template: 'the API server timed out on %s; retrying',
  },
  ConnectionError: {
    severity: Severity.Warning,
    eventReason: 'ApiServerUnreachable',
    template: 'the API server could not be reached (%s); retrying',
  },
  Unknown: { severity: Severity.Warning, eventReason: 'ReconcileFailed', template: '%s: %s' },
};

/** `%s` substitution without `formatMessage`'s per-argument cut: the whole message is cut once. */
function fill(template: string, ...args: string[]): string {
  let i = 0;
  return template.replace(/%s/g, () => args[i++] ?? '');
}

/** `Job keystone-db-create` (kind and name, the name cut when long), or `an object` when unknown. */
export function subjectText(err: unknown): string {
  const { kind, name } = errorSubject(err);
  if (!kind && !name) return 'an object';
  return [kind, name ? shortValue(name) : undefined].filter(Boolean).join(' ');
}

/**
 * The user-facing account of a reconcile failure (see `FailureMessages`). An `ApiError` names
 * the object and the fields the API server refused; an error with its own `severity` (a
 * `ReconcileError`) keeps it and its message; anything else is a Warning with its message cleaned.
 */
export function failureMessage(err: unknown): FailureMessage {
  if (err instanceof ApiError) {
    const reason = isConnectionError(err) ? 'ConnectionError' : isConflict(err) ? 'Conflict' : err.reason;
    const t = FailureMessages[reason] ??
      (err.code >= 500 ? FailureMessages['InternalError'] : undefined) ??
      FailureMessages['Unknown'] ?? {
        severity: Severity.Warning,
        eventReason: 'ReconcileFailed',
        template: '%s: %s',
      };
    const message =
      reason === 'ConnectionError'
        ? fill(t.template, cleanMessage(err.statusMessage))
        : fill(t.template, subjectText(err), errorDetail(err));
    return { severity: t.severity, eventReason: t.eventReason, message: cutMessage(message) };
  }
  const own = err as { severity?: unknown; reason?: unknown } | undefined;
  const severity = own?.severity === Severity.Error ? Severity.Error : Severity.Warning;
  const eventReason = typeof own?.reason === 'string' && own.reason !== '' ? own.reason : 'ReconcileFailed';
  const text = err instanceof Error ? err.message : String(err);
  return { severity, eventReason, message: cutMessage(cleanMessage(text)) };
}

/** Whether a failure needs no word to the user: a lost race the next pass resolves, or a namespace going away. */
export function isBenignFailure(err: unknown): boolean {
  return isConflict(err) || isNamespaceTerminating(err);
}
