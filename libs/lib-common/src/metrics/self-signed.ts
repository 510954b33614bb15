import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { isIP } from 'node:net';

/** A PEM certificate and its PEM (PKCS#8) private key. */
export interface CertificatePair {
  cert: string;
  key: string;
}

// Minimal DER encoding: just what one X.509 v3 certificate needs.
function length(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v >>= 8) bytes.unshift(v & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}
const tlv = (tag: number, body: Buffer): Buffer =>
  Buffer.concat([Buffer.from([tag]), length(body.length), body]);
const seq = (...items: Buffer[]): Buffer => tlv(0x30, Buffer.concat(items));
const set = (...items: Buffer[]): Buffer => tlv(0x31, Buffer.concat(items));
const explicit = (n: number, body: Buffer): Buffer => tlv(0xa0 + n, body);

function oid(dotted: string): Buffer {
  const [a = 0, b = 0, ...rest] = dotted.split('.').map(Number);
  const out = [40 * a + b];
  for (const v of rest) {
    const chunk = [v & 0x7f];
    for (let x = v >> 7; x > 0; x >>= 7) chunk.unshift((x & 0x7f) | 0x80);
    out.push(...chunk);
  }
  return tlv(0x06, Buffer.from(out));
}

/** A non-negative INTEGER in DER's one encoding: no leading zero byte unless the next has its top bit set. */
function integer(bytes: Buffer): Buffer {
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0) start++;
  const minimal = bytes.subarray(start);
  // A leading 1 bit would read as negative.
  return tlv(0x02, (minimal[0] ?? 0) & 0x80 ? Buffer.concat([Buffer.from([0]), minimal]) : minimal);
}

function time(d: Date): Buffer {
  const iso = d.toISOString();
  const year = d.getUTCFullYear();
  const compact = `${iso.slice(0, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}Z`;
  // UTCTime up to 2049, GeneralizedTime after (RFC 5280 4.1.2.5).
  return year < 2050 ? tlv(0x17, Buffer.from(compact.slice(2))) : tlv(0x18, Buffer.from(compact));
}

const commonName = (cn: string): Buffer => seq(set(seq(oid('2.5.4.3'), tlv(0x0c, Buffer.from(cn)))));

function ipBytes(ip: string): Buffer {
  if (isIP(ip) === 4) return Buffer.from(ip.split('.').map(Number));
  const [head = '', tail = ''] = ip.split('::');
  const part = (s: string) => (s ? s.split(':') : []);
  const h = part(head);
  const t = part(tail);
  const groups = ip.includes('::') ? [...h, ...Array(8 - h.length - t.length).fill('0'), ...t] : h;
  return Buffer.from(
    groups.flatMap((g) => [(Number.parseInt(g, 16) >> 8) & 0xff, Number.parseInt(g, 16) & 0xff]),
  );
}

/**
 * A self-signed ECDSA P-256 certificate for `hosts` (DNS names and IP addresses), valid from an
 * hour ago for `days` (default one year): what a metrics endpoint serves when no certificate is
 * given, as controller-runtime's secure serving does. Scrapers skip verification of it (or pin it).
 */
export function selfSignedCertificate(hosts: readonly string[], days = 365): CertificatePair {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const spki = publicKey.export({ type: 'spki', format: 'der' });
  const now = Date.now();
  const names = hosts.map((h) => (isIP(h) ? tlv(0x87, ipBytes(h)) : tlv(0x82, Buffer.from(h))));
  const ecdsaWithSha256 = seq(oid('1.2.840.10045.4.3.2'));
  const name = commonName(hosts[0] ?? 'localhost');
  // Positive and never zero-led (RFC 5280 4.1.2.2): a random first byte of 0 made a padded,
  // undecodable INTEGER in about one certificate of 256.
  const serial = randomBytes(16);
  serial[0] = ((serial[0] ?? 0) & 0x7f) | 0x40;
  const extensions = explicit(
    3,
    seq(
      // subjectAltName
      seq(oid('2.5.29.17'), tlv(0x04, seq(...names))),
      // basicConstraints: not a CA (critical)
      seq(oid('2.5.29.19'), tlv(0x01, Buffer.from([0xff])), tlv(0x04, seq())),
      // extKeyUsage: serverAuth
      seq(oid('2.5.29.37'), tlv(0x04, seq(oid('1.3.6.1.5.5.7.3.1')))),
    ),
  );
  const tbs = seq(
    explicit(0, integer(Buffer.from([2]))),
    integer(serial),
    ecdsaWithSha256,
    name,
    seq(time(new Date(now - 3_600_000)), time(new Date(now + days * 86_400_000))),
    name,
    spki,
    extensions,
  );
  const signature = sign('sha256', tbs, { key: privateKey, dsaEncoding: 'der' });
  const der = seq(tbs, ecdsaWithSha256, tlv(0x03, Buffer.concat([Buffer.from([0]), signature])));
  const body = der
    .toString('base64')
    .match(/.{1,64}/g)
    ?.join('\n');
  return {
    cert: `-----BEGIN CERTIFICATE-----\n${body}\n-----END CERTIFICATE-----\n`,
    key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  };
}
