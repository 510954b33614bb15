import {
  INTERMEDIATE_CIPHERS,
  MODERN_CIPHERS,
  TLS_PROFILE_CIPHERS,
  type TlsProfileType,
  type TlsSecurityProfile,
  type TlsVersion,
} from '../api/tls-security-profile.js';

/** The OpenShift config/v1 predefined profiles. */
export const TLS_PROFILES: Record<
  Exclude<TlsProfileType, 'Custom'>,
  { ciphers: string[]; minTLSVersion: TlsVersion }
> = {
  Old: { ciphers: [...TLS_PROFILE_CIPHERS], minTLSVersion: 'VersionTLS10' },
  Intermediate: { ciphers: [...INTERMEDIATE_CIPHERS], minTLSVersion: 'VersionTLS12' },
  Modern: { ciphers: [...MODERN_CIPHERS], minTLSVersion: 'VersionTLS13' },
};

/** OpenSSL cipher names → Go crypto/tls names; TLS 1.3 suites and ciphers Go lacks are absent. */
const GO_CIPHER_NAMES: Record<string, string> = {
  'ECDHE-ECDSA-AES128-GCM-SHA256': 'TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256',
  'ECDHE-RSA-AES128-GCM-SHA256': 'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256',
  'ECDHE-ECDSA-AES256-GCM-SHA384': 'TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384',
  'ECDHE-RSA-AES256-GCM-SHA384': 'TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384',
  'ECDHE-ECDSA-CHACHA20-POLY1305': 'TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256',
  'ECDHE-RSA-CHACHA20-POLY1305': 'TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256',
  'ECDHE-ECDSA-AES128-SHA256': 'TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256',
  'ECDHE-RSA-AES128-SHA256': 'TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256',
  'AES128-GCM-SHA256': 'TLS_RSA_WITH_AES_128_GCM_SHA256',
  'AES256-GCM-SHA384': 'TLS_RSA_WITH_AES_256_GCM_SHA384',
  'AES128-SHA256': 'TLS_RSA_WITH_AES_128_CBC_SHA256',
  'ECDHE-ECDSA-AES128-SHA': 'TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA',
  'ECDHE-RSA-AES128-SHA': 'TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA',
  'ECDHE-ECDSA-AES256-SHA': 'TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA',
  'ECDHE-RSA-AES256-SHA': 'TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA',
  'AES128-SHA': 'TLS_RSA_WITH_AES_128_CBC_SHA',
  'AES256-SHA': 'TLS_RSA_WITH_AES_256_CBC_SHA',
  'DES-CBC3-SHA': 'TLS_RSA_WITH_3DES_EDE_CBC_SHA',
};

export interface TlsSettings {
  /** OpenSSL names, de-duplicated, in profile order. */
  ciphers: string[];
  minTLSVersion: TlsVersion | '';
}

/** No profile means Modern; Custom takes its own lists; the rest come from the predefined table. */
export function selectTlsSettings(profile: TlsSecurityProfile | null | undefined): TlsSettings {
  let ciphers: readonly string[];
  let minTLSVersion: TlsVersion | '';
  if (profile?.custom) {
    ciphers = profile.custom.ciphers ?? [];
    minTLSVersion = profile.custom.minTLSVersion ?? '';
  } else {
    const preset = TLS_PROFILES[(profile?.type ?? 'Modern') as keyof typeof TLS_PROFILES];
    ciphers = preset?.ciphers ?? [];
    minTLSVersion = preset?.minTLSVersion ?? '';
  }
  return { ciphers: [...new Set(ciphers)], minTLSVersion };
}

/** Go cipher-suite names for `--tls-cipher-suites`; unknown and TLS 1.3 names are skipped. */
export const toGoCipherNames = (ciphers: readonly string[]): string[] =>
  ciphers.flatMap((c) => (GO_CIPHER_NAMES[c] ? [GO_CIPHER_NAMES[c]] : []));
