import { createPrivateKey, generateKeyPairSync, type KeyObject, X509Certificate } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createCertificate, type DistinguishedName } from './x509.js';

/** File paths of a cluster's PKI; everything is ECDSA P-256 (fast to generate, accepted by every component). */
export interface ClusterPki {
  caCert: string;
  caKey: string;
  apiserverCert: string;
  apiserverKey: string;
  /** The admin client (O=system:masters), used by the controllers, kwok, the tests, kubectl and helm. */
  adminCert: string;
  adminKey: string;
  /** Service-account token signing key pair. */
  serviceAccountKey: string;
  serviceAccountPub: string;
}

export function pkiPaths(dir: string): ClusterPki {
  return {
    caCert: join(dir, 'ca.crt'),
    caKey: join(dir, 'ca.key'),
    apiserverCert: join(dir, 'apiserver.crt'),
    apiserverKey: join(dir, 'apiserver.key'),
    adminCert: join(dir, 'admin.crt'),
    adminKey: join(dir, 'admin.key'),
    serviceAccountKey: join(dir, 'sa.key'),
    serviceAccountPub: join(dir, 'sa.pub'),
  };
}

const tenYears = 10 * 365 * 24 * 3600 * 1000;

function newKey(): { privateKey: KeyObject; publicKey: KeyObject } {
  return generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
}

function writeKey(path: string, key: KeyObject): void {
  writeFileSync(path, key.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
}

/**
 * Creates the CA, the API server's serving certificate, the admin client certificate and the
 * service-account key pair in `dir`, or keeps them when they already exist (a restarted cluster
 * keeps its identity, so service-account tokens and saved kubeconfigs stay valid).
 */
export function ensureClusterPki(dir: string): ClusterPki {
  const paths = pkiPaths(dir);
  if (Object.values(paths).every((p) => existsSync(p))) return paths;
  mkdirSync(dir, { recursive: true, mode: 0o700 });

  const notBefore = new Date(Date.now() - 3600 * 1000); // tolerate small clock skew
  const notAfter = new Date(notBefore.getTime() + tenYears);
  const ca = newKey();
  const caName: DistinguishedName = { commonName: 'kube-env-ca' };
  const issue = (
    subject: DistinguishedName,
    key: { publicKey: KeyObject },
    extra: { usage: 'serverAuth' | 'clientAuth'; dnsNames?: string[]; ipAddresses?: string[] },
  ) =>
    createCertificate({
      subject,
      publicKey: key.publicKey,
      issuer: caName,
      issuerKey: ca.privateKey,
      issuerPublicKey: ca.publicKey,
      isCA: false,
      keyUsage: ['digitalSignature'],
      extendedKeyUsage: [extra.usage],
      dnsNames: extra.dnsNames,
      ipAddresses: extra.ipAddresses,
      notBefore,
      notAfter,
    });

  writeFileSync(
    paths.caCert,
    createCertificate({
      subject: caName,
      publicKey: ca.publicKey,
      issuer: caName,
      issuerKey: ca.privateKey,
      issuerPublicKey: ca.publicKey,
      isCA: true,
      keyUsage: ['digitalSignature', 'keyCertSign', 'cRLSign'],
      notBefore,
      notAfter,
    }),
  );
  writeKey(paths.caKey, ca.privateKey);

  const apiserver = newKey();
  writeFileSync(
    paths.apiserverCert,
    issue({ commonName: 'kube-apiserver' }, apiserver, {
      usage: 'serverAuth',
      dnsNames: [
        'localhost',
        'kubernetes',
        'kubernetes.default',
        'kubernetes.default.svc',
        'kubernetes.default.svc.cluster.local',
      ],
      ipAddresses: ['127.0.0.1', '10.96.0.1'],
    }),
  );
  writeKey(paths.apiserverKey, apiserver.privateKey);

  const admin = newKey();
  writeFileSync(
    paths.adminCert,
    issue({ commonName: 'kube-env-admin', organizations: ['system:masters'] }, admin, {
      usage: 'clientAuth',
    }),
  );
  writeKey(paths.adminKey, admin.privateKey);

  const sa = newKey();
  writeKey(paths.serviceAccountKey, sa.privateKey);
  writeFileSync(paths.serviceAccountPub, sa.publicKey.export({ type: 'spki', format: 'pem' }));
  return paths;
}

/** Reads the PEM material a client needs (CA, admin cert, admin key). */
export function readClientCredentials(pki: ClusterPki): { ca: string; cert: string; key: string } {
  return {
    ca: readFileSync(pki.caCert, 'utf8'),
    cert: readFileSync(pki.adminCert, 'utf8'),
    key: readFileSync(pki.adminKey, 'utf8'),
  };
}

/** A certificate signed by the cluster CA, for one of the real node's identities. */
export interface LeafSpec {
  subject: DistinguishedName;
  usage: 'serverAuth' | 'clientAuth';
  dnsNames?: string[];
  ipAddresses?: string[];
}

/**
 * Issues `<dir>/<name>.crt` and `.key` from the cluster CA unless both exist with the same subject
 * and names (a changed spec, e.g. another node IP, gets a new certificate). Returns the two paths.
 */
export function ensureLeafCertificate(
  pki: ClusterPki,
  dir: string,
  name: string,
  spec: LeafSpec,
): { cert: string; key: string } {
  const paths = { cert: join(dir, `${name}.crt`), key: join(dir, `${name}.key`) };
  const specFile = join(dir, `${name}.spec.json`);
  const wanted = JSON.stringify(spec);
  if (
    existsSync(paths.cert) &&
    existsSync(paths.key) &&
    existsSync(specFile) &&
    readFileSync(specFile, 'utf8') === wanted
  ) {
    return paths;
  }
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const caKey = createPrivateKey(readFileSync(pki.caKey));
  const caCert = new X509Certificate(readFileSync(pki.caCert));
  const key = newKey();
  const notBefore = new Date(Date.now() - 3600 * 1000);
  writeFileSync(
    paths.cert,
    createCertificate({
      subject: spec.subject,
      publicKey: key.publicKey,
      issuer: { commonName: caCommonName(caCert) },
      issuerKey: caKey,
      issuerPublicKey: caCert.publicKey,
      isCA: false,
      keyUsage: ['digitalSignature'],
      extendedKeyUsage: [spec.usage],
      dnsNames: spec.dnsNames,
      ipAddresses: spec.ipAddresses,
      notBefore,
      notAfter: new Date(notBefore.getTime() + tenYears),
    }),
  );
  writeKey(paths.key, key.privateKey);
  writeFileSync(specFile, wanted);
  return paths;
}

/** The CA's subject is only a common name (see ensureClusterPki). */
function caCommonName(ca: X509Certificate): string {
  const cn = /^CN=(.*)$/m.exec(ca.subject)?.[1];
  if (!cn) throw new Error(`cluster CA has no common name: ${ca.subject}`);
  return cn;
}
