import { ConditionType, Severity } from '../conditions/catalog.js';
import type { Conditions } from '../conditions/conditions.js';
import { stableHash } from '../objects/hash.js';
import { type SecretObject, secretValue } from '../objects/secrets.js';

type Json = Record<string, unknown>;

/**
 * Pod-level TLS of an OpenStack API (upstream lib-common `tls`): per-endpoint certificates from
 * kubernetes.io/tls Secrets, served by httpd, and a CA bundle Secret mounted where the images'
 * system trust store reads it. Names, keys, paths and modes are upstream's, so manifests and
 * Secrets written for upstream work unchanged.
 */
export const TlsKeys = {
  /** The full CA bundle in the `caBundleSecretName` Secret. */
  caBundle: 'tls-ca-bundle.pem',
  internalCaBundle: 'internal-ca-bundle.pem',
  cert: 'tls.crt',
  key: 'tls.key',
  ca: 'ca.crt',
} as const;

export const TlsPaths = {
  /** Where the CA bundle is mounted (the distribution's extracted trust store). */
  caBundle: '/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem',
  /** Certificates and keys are mounted here; kolla copies them to /etc/pki/tls/{certs,private}. */
  certDir: '/var/lib/config-data/tls/certs',
  keyDir: '/var/lib/config-data/tls/private',
  /** Where httpd reads them after kolla's copy. */
  httpdCertDir: '/etc/pki/tls/certs',
  httpdKeyDir: '/etc/pki/tls/private',
} as const;

/** Upstream's default name of the CA bundle Secret (openstack-operator creates it). */
export const DEFAULT_CA_BUNDLE_SECRET = 'combined-ca-bundle';
/** The CA bundle volume's name. */
export const CA_BUNDLE_VOLUME = 'combined-ca-bundle';
/** Input-hash keys (upstream's names). */
export const TlsHashKeys = { caBundle: TlsKeys.caBundle, certs: 'certs' } as const;

export type TlsEndpoint = 'internal' | 'public';
export const TLS_ENDPOINTS: readonly TlsEndpoint[] = ['internal', 'public'];

/** Upstream `tls.API` as it appears in a CR spec. */
export interface TlsApiSpec {
  api?: { internal?: { secretName?: string }; public?: { secretName?: string } };
  caBundleSecretName?: string;
}

/** The certificate Secret of an endpoint, or undefined when that endpoint serves plain HTTP. */
export function tlsSecretName(tls: TlsApiSpec | undefined, endpoint: TlsEndpoint): string | undefined {
  const name = tls?.api?.[endpoint]?.secretName;
  return name ? name : undefined;
}

/** Upstream `APIService.Enabled`: the endpoint has a certificate Secret. */
export function tlsEnabled(tls: TlsApiSpec | undefined, endpoint: TlsEndpoint): boolean {
  return tlsSecretName(tls, endpoint) !== undefined;
}

/** The scheme an endpoint is published with. */
export function endpointProtocol(tls: TlsApiSpec | undefined, endpoint: TlsEndpoint): 'http' | 'https' {
  return tlsEnabled(tls, endpoint) ? 'https' : 'http';
}

/** Volume `combined-ca-bundle` from the CA bundle Secret, mode 0444. */
export function caBundleVolume(secretName: string): Json {
  return { name: CA_BUNDLE_VOLUME, secret: { secretName, defaultMode: 0o444 } };
}

/** The CA bundle file mounted (subPath) over the image's extracted trust store bundle. */
export function caBundleVolumeMount(): Json {
  return { name: CA_BUNDLE_VOLUME, mountPath: TlsPaths.caBundle, subPath: TlsKeys.caBundle, readOnly: true };
}

/** Volume `<endpoint>-tls-certs` from the endpoint's kubernetes.io/tls Secret, mode 0400. */
export function certVolume(endpoint: string, secretName: string): Json {
  return { name: `${endpoint}-tls-certs`, secret: { secretName, defaultMode: 0o400 } };
}

/** `<certDir>/<endpoint>.crt` and `<keyDir>/<endpoint>.key` (subPaths tls.crt, tls.key). */
export function certVolumeMounts(endpoint: string): Json[] {
  return [
    {
      name: `${endpoint}-tls-certs`,
      mountPath: `${TlsPaths.certDir}/${endpoint}.crt`,
      subPath: TlsKeys.cert,
      readOnly: true,
    },
    {
      name: `${endpoint}-tls-certs`,
      mountPath: `${TlsPaths.keyDir}/${endpoint}.key`,
      subPath: TlsKeys.key,
      readOnly: true,
    },
  ];
}

/** The CA bundle volume and mount when `caBundleSecretName` is set (API, db-sync, bootstrap, cron pods). */
export function caBundleVolumes(tls: TlsApiSpec | undefined): { volumes: Json[]; mounts: Json[] } {
  const name = tls?.caBundleSecretName;
  return name
    ? { volumes: [caBundleVolume(name)], mounts: [caBundleVolumeMount()] }
    : { volumes: [], mounts: [] };
}

/** Certificate volumes and mounts of every TLS endpoint, internal then public (the API pods). */
export function endpointCertVolumes(tls: TlsApiSpec | undefined): { volumes: Json[]; mounts: Json[] } {
  const volumes: Json[] = [];
  const mounts: Json[] = [];
  for (const endpoint of TLS_ENDPOINTS) {
    const secret = tlsSecretName(tls, endpoint);
    if (!secret) continue;
    volumes.push(certVolume(endpoint, secret));
    mounts.push(...certVolumeMounts(endpoint));
  }
  return { volumes, mounts };
}

/** The files httpd's vhost of `endpoint` names after kolla copied them. */
export function httpdVhostCertFiles(endpoint: string): { certificateFile: string; keyFile: string } {
  return {
    certificateFile: `${TlsPaths.httpdCertDir}/${endpoint}.crt`,
    keyFile: `${TlsPaths.httpdKeyDir}/${endpoint}.key`,
  };
}

/** kolla config.json entries copying the mounted certificates and keys where httpd reads them. */
export function kollaTlsConfigFiles(owner: string): Json[] {
  return [
    {
      source: `${TlsPaths.certDir}/*`,
      dest: `${TlsPaths.httpdCertDir}/`,
      owner,
      perm: '0640',
      optional: true,
      merge: true,
    },
    {
      source: `${TlsPaths.keyDir}/*`,
      dest: `${TlsPaths.httpdKeyDir}/`,
      owner,
      perm: '0600',
      optional: true,
      merge: true,
    },
  ];
}

/** What `verifyTlsInputs` found: input hashes when complete, else what is missing (names only). */
export type TlsInputVerdict =
  | { ready: true; hashes: Record<string, string> }
  | {
      ready: false;
      /** A Secret is missing (a wait) or a Secret lacks a key (an error until it is fixed). */
      problem: 'missingCaBundle' | 'missingCertSecret' | 'missingKey';
      /** e.g. `combined-ca-bundle`, `cert-keystone-public-svc`, `key tls.key in Secret x`. */
      missing: string[];
    };

/**
 * Upstream's TLS input checks (`ValidateCACertSecret`, `ValidateCertSecrets`): the CA bundle
 * Secret has `tls-ca-bundle.pem`; each enabled endpoint's Secret has `tls.crt` and `tls.key`.
 * `secret(name)` reads a Secret of the CR's namespace (from the cache). On success the hashes
 * are upstream's input-hash entries: `tls-ca-bundle.pem` and `certs` (only those that apply),
 * so a changed certificate or CA rolls the pods; values never leave this function otherwise.
 */
export function verifyTlsInputs(
  tls: TlsApiSpec | undefined,
  secret: (name: string) => SecretObject | undefined | null,
): TlsInputVerdict {
  const hashes: Record<string, string> = {};
  const missingKeys: string[] = [];
  const caName = tls?.caBundleSecretName;
  if (caName) {
    const ca = secret(caName);
    if (!ca) return { ready: false, problem: 'missingCaBundle', missing: [caName] };
    const value = secretValue(ca, TlsKeys.caBundle);
    if (value === undefined || value === '') missingKeys.push(`key ${TlsKeys.caBundle} in Secret ${caName}`);
    else hashes[TlsHashKeys.caBundle] = stableHash(value);
  }
  const missingSecrets: string[] = [];
  const certHashes: Record<string, string> = {};
  for (const endpoint of TLS_ENDPOINTS) {
    const name = tlsSecretName(tls, endpoint);
    if (!name) continue;
    const s = secret(name);
    if (!s) {
      missingSecrets.push(name);
      continue;
    }
    const values: string[] = [];
    for (const key of [TlsKeys.key, TlsKeys.cert]) {
      const v = secretValue(s, key);
      if (v === undefined || v === '') missingKeys.push(`key ${key} in Secret ${name}`);
      else values.push(v);
    }
    certHashes[`cert-${endpoint}`] = stableHash(values);
  }
  if (missingSecrets.length > 0)
    return { ready: false, problem: 'missingCertSecret', missing: missingSecrets };
  if (missingKeys.length > 0) return { ready: false, problem: 'missingKey', missing: missingKeys };
  if (Object.keys(certHashes).length > 0) hashes[TlsHashKeys.certs] = stableHash(certHashes);
  return { ready: true, hashes };
}

/**
 * Sets `TLSInputReady` from a verdict with upstream's reasons: a missing CA bundle Secret is an
 * Error (Warning), a missing certificate Secret a wait (Requested, Info), a missing key an Error;
 * the message names what is missing. Ready → True "Input data complete".
 */
export function markTlsInputCondition(conditions: Conditions, verdict: TlsInputVerdict): void {
  if (verdict.ready) {
    conditions.markTrue(ConditionType.TLSInputReady);
    return;
  }
  const what = verdict.missing.join(', ');
  if (verdict.problem === 'missingCertSecret')
    conditions.markFalse(
      ConditionType.TLSInputReady,
      'Requested',
      Severity.Info,
      'TLSInput is missing: %s',
      what,
    );
  else
    conditions.markFalse(
      ConditionType.TLSInputReady,
      'Error',
      Severity.Warning,
      'TLSInput is missing: %s',
      what,
    );
}
