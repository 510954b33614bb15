import { describe, expect, it } from 'vitest';
import { describeConditions, describeObject } from './wait.js';

describe('describeObject', () => {
  it('hides Secret values but keeps their keys, and drops managedFields', () => {
    const text = describeObject({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's', managedFields: [{ manager: 'x' }] } as never,
      data: { password: 'c2VjcmV0' },
      stringData: { token: 'plain' },
    });
    expect(text).toContain('"password": "<redacted>"');
    expect(text).toContain('"token": "<redacted>"');
    expect(text).not.toContain('c2VjcmV0');
    expect(text).not.toContain('plain');
    expect(text).not.toContain('managedFields');
  });

  it('shows ConfigMap data as is', () => {
    expect(describeObject({ kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: 'b' } })).toContain(
      '"a": "b"',
    );
  });
});

describe('describeConditions', () => {
  it('prints one line per condition', () => {
    const obj = {
      metadata: { name: 'x' },
      status: {
        conditions: [
          { type: 'Ready', status: 'False', severity: 'Error', reason: 'Failed', message: 'db down' },
          { type: 'DBReady', status: 'True' },
        ],
      },
    };
    expect(describeConditions(obj)).toBe('Ready=False (Error) Failed: db down\nDBReady=True');
    expect(describeConditions(undefined)).toBe('(no conditions)');
  });
});
