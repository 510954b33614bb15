import { describe, expect, it } from 'vitest';
import { selectTlsSettings, TLS_PROFILES, toGoCipherNames } from './tls-profile.js';

describe('selectTlsSettings', () => {
  it('defaults to Modern (TLS 1.3 only)', () => {
    expect(selectTlsSettings(undefined)).toEqual({
      ciphers: ['TLS_AES_128_GCM_SHA256', 'TLS_AES_256_GCM_SHA384', 'TLS_CHACHA20_POLY1305_SHA256'],
      minTLSVersion: 'VersionTLS13',
    });
  });

  it.each([
    ['Old', 'VersionTLS10'],
    ['Intermediate', 'VersionTLS12'],
  ] as const)('uses the %s table', (type, min) => {
    const s = selectTlsSettings({ type });
    expect(s.minTLSVersion).toBe(min);
    expect(s.ciphers).toEqual(TLS_PROFILES[type].ciphers);
  });

  it('takes a Custom profile as given, de-duplicated', () => {
    expect(
      selectTlsSettings({
        type: 'Custom',
        custom: {
          ciphers: ['ECDHE-RSA-AES128-GCM-SHA256', 'ECDHE-RSA-AES128-GCM-SHA256', 'AES128-SHA'],
          minTLSVersion: 'VersionTLS12',
        },
      }),
    ).toEqual({ ciphers: ['ECDHE-RSA-AES128-GCM-SHA256', 'AES128-SHA'], minTLSVersion: 'VersionTLS12' });
  });

  it('lists no cipher twice in any table', () => {
    for (const p of Object.values(TLS_PROFILES)) expect(new Set(p.ciphers).size).toBe(p.ciphers.length);
  });
});

describe('toGoCipherNames', () => {
  it('maps nothing for Modern (TLS 1.3 suites are not configurable in Go)', () => {
    expect(toGoCipherNames(TLS_PROFILES.Modern.ciphers)).toEqual([]);
  });

  it('maps OpenSSL names to Go names and skips unknown ones', () => {
    expect(
      toGoCipherNames(['ECDHE-ECDSA-CHACHA20-POLY1305', 'DHE-RSA-AES128-GCM-SHA256', 'DES-CBC3-SHA']),
    ).toEqual(['TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256', 'TLS_RSA_WITH_3DES_EDE_CBC_SHA']);
  });

  it('maps every Intermediate TLS 1.2 cipher', () => {
    expect(toGoCipherNames(TLS_PROFILES.Intermediate.ciphers)).toHaveLength(6);
  });
});
