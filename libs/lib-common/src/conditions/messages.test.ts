import { describe, expect, it } from 'vitest';
import { ApiError, apiErrorFromResponse, isConflict, isTransient } from '../client/errors.js';
import { ReconcileError } from '../runtime/error-policy.js';
import { Conditions } from './conditions.js';
import { failureMessage } from './messages.js';

/** The HTTP code the API server sends with each Status reason these tests use. */
const CODES = { Forbidden: 403, Invalid: 422 } as const;

/** The ApiError for a v1.Status body of `reason` (and its code) answering `request`. */
const statusError = (
  reason: keyof typeof CODES,
  message: string,
  request: { verb: string; path: string },
  details?: object,
) =>
  apiErrorFromResponse(
    CODES[reason],
    { kind: 'Status', reason, code: CODES[reason], message, ...(details ? { details } : {}) },
    request,
  );

describe('failure messages (one table, by API status reason)', () => {
  it('a Forbidden write names the object from the request path, without verb, URL or query', () => {
    const err = statusError('Forbidden', 'jobs.batch "k-db-sync" is forbidden: exceeded quota: q', {
      verb: 'PATCH',
      path: '/apis/batch/v1/namespaces/openstack/jobs/k-db-sync?fieldManager=x&force=true',
    });
    expect(err.message).toContain('PATCH /apis/batch');
    expect(failureMessage(err)).toEqual({
      severity: 'Error',
      eventReason: 'Forbidden',
      message: 'jobs k-db-sync forbidden: exceeded quota: q',
    });
  });

  it('no response is a Warning that will be retried, without the URL', () => {
    const err = new ApiError({
      code: 0,
      reason: 'ConnectionError',
      message: 'connect ECONNREFUSED 127.0.0.1:6443 https://127.0.0.1:6443/api/v1/namespaces/a/secrets/b?x=y',
      verb: 'GET',
      path: '/api/v1/namespaces/a/secrets/b',
    });
    const f = failureMessage(err);
    expect(f.severity).toBe('Warning');
    expect(f.message).toBe(
      'the API server could not be reached (connect ECONNREFUSED 127.0.0.1:6443); retrying',
    );
  });

  it('a ReconcileError keeps its severity and reason; a plain error is a Warning', () => {
    expect(
      failureMessage(new ReconcileError('bad spec', { reason: 'InvalidSpec', severity: 'Error' })),
    ).toEqual({
      severity: 'Error',
      eventReason: 'InvalidSpec',
      message: 'bad spec',
    });
    expect(failureMessage(new Error('x (GET /api/v1/namespaces/a/pods)')).message).toBe('x');
  });

  it('markError with an API error drops the request line from the condition (and the MESSAGE column)', () => {
    const err = statusError(
      'Invalid',
      'Service "a.b-internal" is invalid: metadata.name: Invalid value: "a.b-internal": a DNS-1035 label …',
      { verb: 'PATCH', path: '/api/v1/namespaces/o/services/a.b-internal?fieldManager=x&force=true' },
      {
        kind: 'Service',
        name: 'a.b-internal',
        causes: [
          {
            field: 'metadata.name',
            message:
              'Invalid value: "a.b-internal": a DNS-1035 label must consist of lower case alphanumeric characters or \'-\'',
          },
        ],
      },
    );
    const c = new Conditions().markError('CreateServiceReady', err).get('CreateServiceReady');
    expect(c?.message).toBe(
      'Create service error occurred Service a.b-internal: metadata.name: "a.b-internal": a DNS-1035 label must consist of lower case alphanumeric characters or \'-\'',
    );
  });

  it('a failed JSON Patch test is a conflict (transient), not an invalid object', () => {
    const err = statusError(
      'Invalid',
      'the server rejected our request due to an error in our request',
      { verb: 'PATCH', path: '/api/v1/namespaces/a/configmaps/b' },
      {},
    );
    expect(isConflict(err)).toBe(true);
    expect(isTransient(err)).toBe(true);
    expect(failureMessage(err).severity).toBe('Warning');
  });
});
