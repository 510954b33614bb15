import { describe, expect, it } from 'vitest';
import { impersonationHeaders, serviceAccountUser } from './client-transport.js';

describe('impersonation', () => {
  it('acts as a ServiceAccount with its groups, one header value per group', () => {
    const headers = impersonationHeaders(serviceAccountUser('stackops', 'keystone-operator'));
    expect(headers['Impersonate-User']).toBe('system:serviceaccount:stackops:keystone-operator');
    expect(headers['Impersonate-Group']).toEqual([
      'system:serviceaccounts',
      'system:serviceaccounts:stackops',
      'system:authenticated',
    ]);
  });

  it('sends no header when not impersonating', () => {
    expect(impersonationHeaders(undefined)).toEqual({});
  });
});
