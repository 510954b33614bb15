import { describe, expect, it } from 'vitest';
import { httpdSslConf } from './httpd-ssl.js';

describe('httpdSslConf', () => {
  it('sets TLS protocols and ciphers only: no vhost, listener or certificate httpd would need', () => {
    expect(httpdSslConf).toContain('SSLProtocol all -SSLv2 -SSLv3 -TLSv1 -TLSv1.1');
    expect(httpdSslConf).not.toMatch(/VirtualHost|Listen|SSLCertificate/);
    expect(httpdSslConf.startsWith('<IfModule ssl_module>')).toBe(true);
  });
});
