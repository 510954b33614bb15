import { connect } from 'node:tls';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpEndpoint } from '../runtime/server.js';
import { selfSignedCertificate } from './self-signed.js';

/** The protocol a client capped at `maxVersion` gets, or the handshake error. */
function handshake(port: number, maxVersion: 'TLSv1.2' | 'TLSv1.3'): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port, rejectUnauthorized: false, maxVersion }, () => {
      resolve(socket.getProtocol() ?? 'none');
      socket.end();
    });
    socket.on('error', (err) => resolve(`error: ${err.message}`));
  });
}

describe('secure metrics TLS settings', () => {
  let endpoint: HttpEndpoint | undefined;
  afterEach(async () => {
    await endpoint?.stop();
  });

  it('refuses a TLS 1.2 client at VersionTLS13, and accepts it once the minimum is lowered without a restart', async () => {
    endpoint = new HttpEndpoint(
      { host: '127.0.0.1', port: 0 },
      { '/metrics': (_q, res) => void res.end('ok') },
      selfSignedCertificate(['127.0.0.1']),
      { minVersion: 'VersionTLS13' },
    );
    const { port } = await endpoint.start();
    expect(await handshake(port, 'TLSv1.2')).toMatch(/^error: .*(protocol version|alert)/i);
    expect(await handshake(port, 'TLSv1.3')).toBe('TLSv1.3');

    endpoint.setTls({ minVersion: 'VersionTLS12', ciphers: ['ECDHE-ECDSA-AES128-GCM-SHA256'] });
    expect(await handshake(port, 'TLSv1.2')).toBe('TLSv1.2');

    // Intermediate's ciphers without an ECDSA one: the ECDSA certificate has no common suite at 1.2.
    endpoint.setTls({ minVersion: 'VersionTLS12', ciphers: ['ECDHE-RSA-AES128-GCM-SHA256'] });
    expect(await handshake(port, 'TLSv1.2')).toMatch(/^error:/);
  });
});
