import type { SecureVersion } from 'node:tls';

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

/** Node's `minVersion`/`ciphers` for `tls.createServer` and `setSecureContext`. */
export function nodeTlsOptions(tls: MetricsTls): { minVersion: SecureVersion; ciphers?: string } {
  return {
    minVersion: NODE_VERSIONS[tls.minVersion],
    ...(tls.ciphers && tls.ciphers.length > 0 ? { ciphers: tls.ciphers.join(':') } : {}),
  };
}
