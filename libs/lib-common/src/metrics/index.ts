/**
 * `@stackops/lib-common/metrics` — Prometheus metrics without a global registry (`counter`,
 * `gauge`, `histogram`), the per-object Ready gauge, the secure metrics endpoint's self-signed
 * certificate and TLS settings. Imports nothing of lib-common.
 */

export { counter, gauge, histogram } from './registry.js';
export { readyValue, trackResourceReady } from './resource-ready.js';
export { type CertificatePair, selfSignedCertificate } from './self-signed.js';
export {
  isTlsVersionName,
  type MetricsTls,
  nodeTlsOptions,
  TLS_VERSION_NAMES,
  type TlsVersionName,
} from './tls.js';
