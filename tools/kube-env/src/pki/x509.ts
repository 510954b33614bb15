import { createHash, type KeyObject, randomBytes, sign } from 'node:crypto';
import { isIPv4 } from 'node:net';
import {
  bitString,
  boolean,
  explicit,
  implicitPrimitive,
  objectIdentifier,
  octetString,
  sequence,
  set,
  smallInteger,
  time,
  unsignedInteger,
  utf8String,
} from './der.js';

/** A tiny X.509 v3 certificate writer for ECDSA P-256 keys signed with SHA-256: only what a local cluster needs. */

export interface DistinguishedName {
  commonName: string;
  /** Kubernetes reads organisations as groups (e.g. system:masters). */
  organizations?: readonly string[];
}

type KeyUsage = 'digitalSignature' | 'keyEncipherment' | 'keyCertSign' | 'cRLSign';
type ExtendedKeyUsage = 'serverAuth' | 'clientAuth';

export interface CertificateRequest {
  subject: DistinguishedName;
  publicKey: KeyObject;
  issuer: DistinguishedName;
  issuerKey: KeyObject;
  /** The issuer's public key, for the authority key identifier (the subject's own key for a self-signed CA). */
  issuerPublicKey: KeyObject;
  isCA: boolean;
  keyUsage: readonly KeyUsage[];
  extendedKeyUsage?: readonly ExtendedKeyUsage[];
  dnsNames?: readonly string[];
  ipAddresses?: readonly string[];
  notBefore: Date;
  notAfter: Date;
}

const oids = {
  commonName: '2.5.4.3',
  organization: '2.5.4.10',
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
  subjectKeyIdentifier: '2.5.29.14',
  keyUsage: '2.5.29.15',
  subjectAltName: '2.5.29.17',
  basicConstraints: '2.5.29.19',
  authorityKeyIdentifier: '2.5.29.35',
  extKeyUsage: '2.5.29.37',
  serverAuth: '1.3.6.1.5.5.7.3.1',
  clientAuth: '1.3.6.1.5.5.7.3.2',
} as const;

const keyUsageBits: Record<KeyUsage, number> = {
  digitalSignature: 0,
  keyEncipherment: 2,
  keyCertSign: 5,
  cRLSign: 6,
};

function name(dn: DistinguishedName): Buffer {
  const attribute = (oid: string, value: string) => set(sequence(objectIdentifier(oid), utf8String(value)));
  return sequence(
    ...(dn.organizations ?? []).map((o) => attribute(oids.organization, o)),
    attribute(oids.commonName, dn.commonName),
  );
}

/** KeyUsage as a DER BIT STRING: bit 0 is the most significant bit of the first byte, trailing zero bits unused. */
function keyUsageValue(usages: readonly KeyUsage[]): Buffer {
  let bits = 0;
  for (const usage of usages) bits |= 0x8000 >> keyUsageBits[usage];
  const bytes = bits & 0xff ? Buffer.from([bits >> 8, bits & 0xff]) : Buffer.from([bits >> 8]);
  const last = bytes[bytes.length - 1] ?? 0;
  let unused = 0;
  while (unused < 7 && (last & (1 << unused)) === 0) unused++;
  return bitString(bytes, last === 0 ? 0 : unused);
}

function extension(oid: string, critical: boolean, value: Buffer): Buffer {
  return sequence(objectIdentifier(oid), ...(critical ? [boolean(true)] : []), octetString(value));
}

function ipBytes(ip: string): Buffer {
  if (!isIPv4(ip)) throw new Error(`only IPv4 SANs are supported: ${ip}`);
  return Buffer.from(ip.split('.').map(Number));
}

/** RFC 5280 method 1: SHA-1 of the subjectPublicKey bits (the part of the SPKI after the algorithm). */
function keyIdentifier(publicKey: KeyObject): Buffer {
  const spki = publicKey.export({ type: 'spki', format: 'der' });
  // For P-256 the uncompressed point is the last 65 bytes of the SPKI.
  return createHash('sha1')
    .update(spki.subarray(spki.length - 65))
    .digest();
}

function extensions(req: CertificateRequest): Buffer {
  const list: Buffer[] = [
    extension(oids.keyUsage, true, keyUsageValue(req.keyUsage)),
    extension(oids.basicConstraints, true, req.isCA ? sequence(boolean(true)) : sequence()),
    extension(oids.subjectKeyIdentifier, false, octetString(keyIdentifier(req.publicKey))),
    extension(
      oids.authorityKeyIdentifier,
      false,
      sequence(implicitPrimitive(0, keyIdentifier(req.issuerPublicKey))),
    ),
  ];
  if (req.extendedKeyUsage?.length) {
    list.push(
      extension(
        oids.extKeyUsage,
        false,
        sequence(...req.extendedKeyUsage.map((u) => objectIdentifier(oids[u]))),
      ),
    );
  }
  const altNames = [
    ...(req.dnsNames ?? []).map((dns) => implicitPrimitive(2, Buffer.from(dns, 'ascii'))),
    ...(req.ipAddresses ?? []).map((ip) => implicitPrimitive(7, ipBytes(ip))),
  ];
  if (altNames.length > 0) list.push(extension(oids.subjectAltName, false, sequence(...altNames)));
  return explicit(3, sequence(...list));
}

/** Returns the certificate as PEM. */
export function createCertificate(req: CertificateRequest): string {
  const serial = randomBytes(16);
  serial[0] = (serial[0] ?? 0) & 0x7f || 0x01; // positive and non-zero, as Go's x509 requires
  const algorithm = sequence(objectIdentifier(oids.ecdsaWithSha256));
  const tbs = sequence(
    explicit(0, smallInteger(2)), // v3
    unsignedInteger(serial),
    algorithm,
    name(req.issuer),
    sequence(time(req.notBefore), time(req.notAfter)),
    name(req.subject),
    req.publicKey.export({ type: 'spki', format: 'der' }),
    extensions(req),
  );
  const signature = sign('sha256', tbs, req.issuerKey); // DER-encoded ECDSA signature
  const der = sequence(tbs, algorithm, bitString(signature));
  const base64 = der.toString('base64').replace(/.{1,64}/g, '$&\n');
  return `-----BEGIN CERTIFICATE-----\n${base64}-----END CERTIFICATE-----\n`;
}
