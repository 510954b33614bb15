import { describe, expect, it } from 'vitest';
import { selfSignedCertificate } from '../metrics/self-signed.js';
import { impersonationHeaders, serviceAccountUser, sharedTls } from './client-transport.js';

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

describe('sharedTls', () => {
  it('parses the CA, certificate and key once into one SecureContext, keeping the other options', () => {
    const pair = selfSignedCertificate(['localhost']);
    const tls = sharedTls({
      ca: pair.cert,
      cert: pair.cert,
      key: pair.key,
      servername: 'api',
      rejectUnauthorized: true,
    });
    expect(tls.secureContext?.context).toBeDefined();
    expect(tls).not.toHaveProperty('ca');
    expect(tls).not.toHaveProperty('key');
    expect(tls).toMatchObject({ servername: 'api', rejectUnauthorized: true });
  });

  it('leaves options without TLS material as they are (the default CAs)', () => {
    const tls = { rejectUnauthorized: false };
    expect(sharedTls(tls)).toBe(tls);
  });
});
