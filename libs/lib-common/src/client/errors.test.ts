import { describe, expect, it } from 'vitest';
import {
  ApiError,
  apiErrorFromResponse,
  describeError,
  errorDetail,
  isAlreadyExists,
  isConflict,
  isGone,
  isInvalid,
  isNotFound,
  isTransient,
} from './errors.js';

describe('apiErrorFromResponse', () => {
  it('takes code, reason, message and details from a v1.Status body', () => {
    const body = JSON.stringify({
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Failure',
      message: 'configmaps "x" not found',
      reason: 'NotFound',
      details: { name: 'x', kind: 'configmaps' },
      code: 404,
    });
    const err = apiErrorFromResponse(404, body, { verb: 'GET', path: '/api/v1/namespaces/a/configmaps/x' });
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toBeInstanceOf(Error);
    expect(err.code).toBe(404);
    expect(err.reason).toBe('NotFound');
    expect(err.statusMessage).toBe('configmaps "x" not found');
    expect(err.details).toEqual({ name: 'x', kind: 'configmaps' });
    expect(err.message).toContain('GET /api/v1/namespaces/a/configmaps/x');
    expect(isNotFound(err)).toBe(true);
    expect(isConflict(err)).toBe(false);
  });

  it('falls back to a reason for the HTTP code and the text body when the body is not a Status', () => {
    const err = apiErrorFromResponse(503, 'upstream connect error');
    expect(err.reason).toBe('ServiceUnavailable');
    expect(err.statusMessage).toBe('upstream connect error');
    expect(isTransient(err)).toBe(true);
  });

  it('uses the Status code of a watch ERROR event (410 Expired) and classifies it as gone', () => {
    const err = apiErrorFromResponse(500, {
      kind: 'Status',
      code: 410,
      reason: 'Expired',
      message: 'too old resource version: 1 (42)',
    });
    expect(err.code).toBe(410);
    expect(isGone(err)).toBe(true);
  });

  it('tells AlreadyExists apart from an optimistic-concurrency Conflict', () => {
    const exists = apiErrorFromResponse(409, { code: 409, reason: 'AlreadyExists', message: 'exists' });
    const conflict = apiErrorFromResponse(409, { code: 409, reason: 'Conflict', message: 'modified' });
    expect(isAlreadyExists(exists)).toBe(true);
    expect(isConflict(exists)).toBe(false);
    expect(isConflict(conflict)).toBe(true);
    expect(isAlreadyExists(conflict)).toBe(false);
  });

  it('classifies 422 as invalid input, which is not transient', () => {
    const err = apiErrorFromResponse(422, {
      code: 422,
      reason: 'Invalid',
      message: 'spec.replicas: Invalid value',
    });
    expect(isInvalid(err)).toBe(true);
    expect(isTransient(err)).toBe(false);
  });

  it('does not classify plain errors', () => {
    expect(isNotFound(new Error('404'))).toBe(false);
    expect(isTransient(new Error('x'))).toBe(false);
  });
});

describe('errorDetail and describeError', () => {
  const missingNamespace = new ApiError({
    code: 404,
    reason: 'NotFound',
    message: 'namespaces "nao-x" not found',
    details: { name: 'nao-x', kind: 'namespaces' },
  });

  it('keep a message that is only its subject whole, once (a missing namespace)', () => {
    expect(errorDetail(missingNamespace)).toBe('namespaces "nao-x" not found');
    expect(describeError(missingNamespace)).toBe('namespaces "nao-x" not found');
  });

  it('give the part after the subject otherwise', () => {
    const invalid = new ApiError({
      code: 422,
      reason: 'Invalid',
      message: 'Job.batch "db-create" is invalid: spec.template.spec.nodeSelector: Invalid value: "a b"',
    });
    expect(errorDetail(invalid)).toBe('spec.template.spec.nodeSelector: "a b"');
  });
});
