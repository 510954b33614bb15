export { counter, gauge, histogram } from './registry.js';
export { type CertificatePair, selfSignedCertificate } from './self-signed.js';
