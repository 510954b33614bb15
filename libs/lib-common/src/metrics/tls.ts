import { DEFAULT_CIPHERS, type SecureVersion } from 'node:tls';

/** The TLS versions by the names Kubernetes operators use (OpenShift's TLSProtocolVersion). */
const NODE_VERSIONS = {
  VersionTLS10: 'TLSv1',
  VersionTLS11: 'TLSv1.1',
  VersionTLS12: 'TLSv1.2',
  VersionTLS13: 'TLSv1.3',
} as const satisfies Record<string, SecureVersion>;

export type TlsVersionName = keyof typeof NODE_VERSIONS;

export const TLS_VERSION_NAMES = Object.keys(NODE_VERSIONS) as TlsVersionName[];

/** What the secure metrics endpoint accepts: a minimum version and, optionally, the cipher list. */
export interface MetricsTls {
  minVersion: TlsVersionName;
  /** OpenSSL names (TLS 1.3 suites included); absent: Node's defaults. */
  ciphers?: readonly string[];
}

export function isTlsVersionName(value: string): value is TlsVersionName {
  return Object.hasOwn(NODE_VERSIONS, value);
}

const DEFAULT_TLS13_SUITES = DEFAULT_CIPHERS.split(':').filter((c) => c.startsWith('TLS_'));

/** Node's `minVersion`/`ciphers` for `tls.createServer` and `setSecureContext`. */
export function nodeTlsOptions(tls: MetricsTls): { minVersion: SecureVersion; ciphers?: string } {
  const ciphers = tls.ciphers ?? [];
  if (ciphers.length === 0) return { minVersion: NODE_VERSIONS[tls.minVersion] };
  // As Go's crypto/tls, which the profiles were written for: a list naming no TLS 1.3 suite leaves
  // TLS 1.3's suites as they are (Node would otherwise turn TLS 1.3 off).
  const tls13 = ciphers.some((c) => c.startsWith('TLS_')) ? [] : DEFAULT_TLS13_SUITES;
  return { minVersion: NODE_VERSIONS[tls.minVersion], ciphers: [...tls13, ...ciphers].join(':') };
}
