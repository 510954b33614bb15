import { X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { selfSignedCertificate } from './self-signed.js';

describe('selfSignedCertificate', () => {
  it('is a valid self-signed serving certificate for the given DNS names and IPs', () => {
    const pair = selfSignedCertificate(['op.ns.svc', '127.0.0.1', '::1'], 30);
    const cert = new X509Certificate(pair.cert);
    expect(cert.verify(cert.publicKey)).toBe(true);
    expect(cert.ca).toBe(false);
    expect(cert.subject).toBe('CN=op.ns.svc');
    expect(cert.checkHost('op.ns.svc')).toBe('op.ns.svc');
    expect(cert.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(cert.subjectAltName).toMatch(/IP Address:0:0:0:0:0:0:0:1/);
    expect(cert.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1']);
    const days = (Date.parse(cert.validTo) - Date.parse(cert.validFrom)) / 86_400_000;
    expect(Math.round(days)).toBe(30);
    expect(pair.key).toMatch(/^-----BEGIN PRIVATE KEY-----/);
  });

  it('is decodable every time: 3000 certificates, each with a positive 16-byte serial (one in 256 failed)', () => {
    for (let i = 0; i < 3000; i++) {
      const cert = new X509Certificate(selfSignedCertificate(['127.0.0.1']).cert);
      expect(cert.serialNumber).toMatch(/^[4-7][0-9A-F]{31}$/);
    }
  });
});
