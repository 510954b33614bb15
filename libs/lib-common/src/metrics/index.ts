/**
 * `@stackops/lib-common/metrics` — Prometheus metrics without a global registry (`counter`,
 * `gauge`, `histogram`) and the self-signed certificate of the secure metrics endpoint. Imports
 * nothing of lib-common.
 */

export { counter, gauge, histogram } from './registry.js';
export { type CertificatePair, selfSignedCertificate } from './self-signed.js';
