import { execFileSync } from 'node:child_process';
import { createPrivateKey, createPublicKey, X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ensureClusterPki, ensureLeafCertificate } from './cluster-pki.js';

const dir = mkdtempSync(join(tmpdir(), 'kube-env-pki-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const cert = (path: string) => new X509Certificate(readFileSync(path));

describe('ensureClusterPki', () => {
  const pki = ensureClusterPki(join(dir, 'pki'));

  it('creates a self-signed CA that may sign certificates', () => {
    const ca = cert(pki.caCert);
    expect(ca.ca).toBe(true);
    expect(ca.subject).toBe('CN=kube-env-ca');
    expect(ca.verify(ca.publicKey)).toBe(true);
  });

  it('issues an API server certificate for loopback and the in-cluster names', () => {
    const ca = cert(pki.caCert);
    const server = cert(pki.apiserverCert);
    expect(server.checkIssued(ca)).toBe(true);
    expect(server.verify(ca.publicKey)).toBe(true);
    expect(server.ca).toBe(false);
    expect(server.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(server.checkHost('localhost')).toBe('localhost');
    expect(server.checkHost('kubernetes.default.svc')).toBe('kubernetes.default.svc');
    expect(server.checkHost('example.com')).toBeUndefined();
    expect(server.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1']);
  });

  it('issues an admin client certificate in system:masters', () => {
    const admin = cert(pki.adminCert);
    expect(admin.verify(cert(pki.caCert).publicKey)).toBe(true);
    expect(admin.subject).toBe('O=system:masters\nCN=kube-env-admin');
    expect(admin.keyUsage).toEqual(['1.3.6.1.5.5.7.3.2']);
    expect(admin.checkPrivateKey(createPrivateKey(readFileSync(pki.adminKey)))).toBe(true);
  });

  it('writes a service-account key pair whose halves match', () => {
    const fromPrivate = createPublicKey(createPrivateKey(readFileSync(pki.serviceAccountKey)));
    const pub = createPublicKey(readFileSync(pki.serviceAccountPub));
    expect(pub.export({ type: 'spki', format: 'der' })).toEqual(
      fromPrivate.export({ type: 'spki', format: 'der' }),
    );
    expect(statSync(pki.serviceAccountKey).mode & 0o077).toBe(0);
  });

  it('keeps an existing PKI instead of regenerating it', () => {
    const before = readFileSync(pki.caCert, 'utf8');
    ensureClusterPki(join(dir, 'pki'));
    expect(readFileSync(pki.caCert, 'utf8')).toBe(before);
  });

  it('passes openssl verification with the extensions openssl expects', () => {
    const out = execFileSync('openssl', ['verify', '-CAfile', pki.caCert, pki.apiserverCert, pki.adminCert], {
      encoding: 'utf8',
    });
    expect(out).toContain(`${pki.apiserverCert}: OK`);
    expect(out).toContain(`${pki.adminCert}: OK`);
    const text = execFileSync('openssl', ['x509', '-noout', '-text', '-in', pki.caCert], {
      encoding: 'utf8',
    });
    expect(text).toMatch(/Key Usage: critical\s+Digital Signature, Certificate Sign, CRL Sign/);
    expect(text).toMatch(/Basic Constraints: critical\s+CA:TRUE/);
  });
});

describe('ensureLeafCertificate', () => {
  const pki = ensureClusterPki(join(dir, 'pki'));
  const spec = {
    subject: { commonName: 'system:node:real-node', organizations: ['system:nodes'] },
    usage: 'clientAuth' as const,
  };

  it('issues a CA-signed certificate with the requested subject, and keeps it while the spec is unchanged', () => {
    const first = ensureLeafCertificate(pki, join(dir, 'node'), 'kubelet-client', spec);
    const issued = cert(first.cert);
    expect(issued.verify(cert(pki.caCert).publicKey)).toBe(true);
    expect(issued.checkIssued(cert(pki.caCert))).toBe(true);
    expect(issued.subject).toBe('O=system:nodes\nCN=system:node:real-node');
    expect(issued.keyUsage).toEqual(['1.3.6.1.5.5.7.3.2']);
    expect(issued.checkPrivateKey(createPrivateKey(readFileSync(first.key)))).toBe(true);
    const again = ensureLeafCertificate(pki, join(dir, 'node'), 'kubelet-client', spec);
    expect(cert(again.cert).serialNumber).toBe(issued.serialNumber);
  });

  it('reissues when the names change', () => {
    const serving = (ip: string) =>
      ensureLeafCertificate(pki, join(dir, 'node'), 'kubelet-serving', {
        subject: { commonName: 'real-node' },
        usage: 'serverAuth',
        dnsNames: ['real-node'],
        ipAddresses: [ip],
      });
    expect(cert(serving('10.250.0.2').cert).checkIP('10.250.0.2')).toBe('10.250.0.2');
    const moved = cert(serving('10.250.0.3').cert);
    expect(moved.checkIP('10.250.0.3')).toBe('10.250.0.3');
    expect(moved.checkIP('10.250.0.2')).toBeUndefined();
  });
});
