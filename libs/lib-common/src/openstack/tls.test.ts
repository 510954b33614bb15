import { describe, expect, it } from 'vitest';
import { Conditions } from '../conditions/conditions.js';
import type { SecretObject } from '../objects/secrets.js';
import { base64 } from '../testing/conditions.js';
import {
  caBundleVolumes,
  endpointCertVolumes,
  endpointProtocol,
  kollaTlsConfigFiles,
  markTlsInputCondition,
  type TlsApiSpec,
  verifyTlsInputs,
} from './tls.js';

const secret = (name: string, data: Record<string, string>): SecretObject => ({
  metadata: { name, namespace: 'ns' },
  data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, base64(v)])),
});
const tls: TlsApiSpec = {
  api: { internal: { secretName: 'cert-internal' }, public: { secretName: 'cert-public' } },
  caBundleSecretName: 'combined-ca-bundle',
};
const complete = () =>
  new Map<string, SecretObject>([
    ['combined-ca-bundle', secret('combined-ca-bundle', { 'tls-ca-bundle.pem': 'CA1' })],
    ['cert-internal', secret('cert-internal', { 'tls.crt': 'CRT-I', 'tls.key': 'KEY-I' })],
    ['cert-public', secret('cert-public', { 'tls.crt': 'CRT-P', 'tls.key': 'KEY-P' })],
  ]);

describe('TLS volumes (upstream names, paths and modes)', () => {
  it('mounts the CA bundle over the trust store bundle, mode 0444', () => {
    expect(caBundleVolumes(tls)).toEqual({
      volumes: [
        { name: 'combined-ca-bundle', secret: { secretName: 'combined-ca-bundle', defaultMode: 0o444 } },
      ],
      mounts: [
        {
          name: 'combined-ca-bundle',
          mountPath: '/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem',
          subPath: 'tls-ca-bundle.pem',
          readOnly: true,
        },
      ],
    });
    expect(caBundleVolumes({})).toEqual({ volumes: [], mounts: [] });
  });

  it('mounts each endpoint certificate and key under /var/lib/config-data/tls, mode 0400', () => {
    const { volumes, mounts } = endpointCertVolumes({ api: { public: { secretName: 'pub' } } });
    expect(volumes).toEqual([
      { name: 'public-tls-certs', secret: { secretName: 'pub', defaultMode: 0o400 } },
    ]);
    expect(mounts.map((m) => [m['mountPath'], m['subPath']])).toEqual([
      ['/var/lib/config-data/tls/certs/public.crt', 'tls.crt'],
      ['/var/lib/config-data/tls/private/public.key', 'tls.key'],
    ]);
    expect(endpointProtocol({ api: { public: { secretName: 'pub' } } }, 'internal')).toBe('http');
    expect(endpointProtocol({ api: { public: { secretName: 'pub' } } }, 'public')).toBe('https');
  });

  it('has kolla copy the mounted files where httpd reads them', () => {
    expect(kollaTlsConfigFiles('keystone:apache').map((f) => [f['source'], f['dest'], f['perm']])).toEqual([
      ['/var/lib/config-data/tls/certs/*', '/etc/pki/tls/certs/', '0640'],
      ['/var/lib/config-data/tls/private/*', '/etc/pki/tls/private/', '0600'],
    ]);
  });
});

describe('verifyTlsInputs and TLSInputReady', () => {
  it('is ready with upstream hash keys when every Secret and key is there', () => {
    const secrets = complete();
    const v = verifyTlsInputs(tls, (n) => secrets.get(n));
    expect(v.ready).toBe(true);
    if (!v.ready) return;
    expect(Object.keys(v.hashes).sort()).toEqual(['certs', 'tls-ca-bundle.pem']);
    // a new certificate changes the certs hash only; a new CA the CA hash only
    secrets.set('cert-public', secret('cert-public', { 'tls.crt': 'CRT-P2', 'tls.key': 'KEY-P' }));
    const v2 = verifyTlsInputs(tls, (n) => secrets.get(n));
    expect(v2.ready && v2.hashes['certs']).not.toBe(v.hashes['certs']);
    expect(v2.ready && v2.hashes['tls-ca-bundle.pem']).toBe(v.hashes['tls-ca-bundle.pem']);
  });

  it('names a missing CA bundle Secret (Error), missing certificate Secrets (Requested) and missing keys', () => {
    const secrets = complete();
    secrets.delete('combined-ca-bundle');
    const c = new Conditions().init(['TLSInputReady']);
    let v = verifyTlsInputs(tls, (n) => secrets.get(n));
    expect(v).toEqual({ ready: false, problem: 'missingCaBundle', missing: ['combined-ca-bundle'] });
    markTlsInputCondition(c, v);
    expect(c.get('TLSInputReady')).toMatchObject({
      status: 'False',
      reason: 'Error',
      severity: 'Warning',
      message: 'TLSInput is missing: combined-ca-bundle',
    });

    secrets.set('combined-ca-bundle', secret('combined-ca-bundle', { 'tls-ca-bundle.pem': 'CA' }));
    secrets.delete('cert-internal');
    secrets.delete('cert-public');
    v = verifyTlsInputs(tls, (n) => secrets.get(n));
    markTlsInputCondition(c, v);
    expect(c.get('TLSInputReady')).toMatchObject({
      status: 'False',
      reason: 'Requested',
      severity: 'Info',
      message: 'TLSInput is missing: cert-internal, cert-public',
    });

    secrets.set('cert-internal', secret('cert-internal', { 'tls.crt': 'CRT' }));
    secrets.set('cert-public', secret('cert-public', { 'tls.crt': 'CRT', 'tls.key': 'K' }));
    v = verifyTlsInputs(tls, (n) => secrets.get(n));
    markTlsInputCondition(c, v);
    expect(c.get('TLSInputReady')?.message).toBe('TLSInput is missing: key tls.key in Secret cert-internal');

    secrets.set('cert-internal', secret('cert-internal', { 'tls.crt': 'CRT', 'tls.key': 'K' }));
    markTlsInputCondition(
      c,
      verifyTlsInputs(tls, (n) => secrets.get(n)),
    );
    expect(c.get('TLSInputReady')).toMatchObject({ status: 'True', message: 'Input data complete' });
  });

  it('never puts a Secret value into what it reports', () => {
    const secrets = complete();
    secrets.set('cert-public', secret('cert-public', { 'tls.crt': 'SECRET-CRT' }));
    expect(JSON.stringify(verifyTlsInputs(tls, (n) => secrets.get(n)))).not.toContain('SECRET');
  });
});
