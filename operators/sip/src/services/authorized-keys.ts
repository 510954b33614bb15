const KEY_TYPES = new Set([
  'ssh-rsa',
  'ssh-dss',
  'ssh-ed25519',
  'ecdsa-sha2-nistp256',
  'ecdsa-sha2-nistp384',
  'ecdsa-sha2-nistp521',
  'sk-ssh-ed25519@openssh.com',
  'sk-ecdsa-sha2-nistp256@openssh.com',
]);

/** The key type recorded inside an OpenSSH public key blob (a length-prefixed string), or undefined. */
function blobKeyType(base64: string): string | undefined {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(base64)) return undefined;
  const blob = Buffer.from(base64, 'base64');
  if (blob.length < 4) return undefined;
  const len = blob.readUInt32BE(0);
  if (len === 0 || 4 + len > blob.length) return undefined;
  return blob.subarray(4, 4 + len).toString('latin1');
}

/**
 * Checks one authorized_keys line as sshd reads it: optional options, a known key type, a base64
 * key whose embedded type matches. Returns why it is invalid, or undefined. The CRD's CEL rule
 * checks the shape; this catches keys that are not valid base64 key blobs.
 */
export function authorizedKeyProblem(line: string): string | undefined {
  const tokens = line.trim().split(/\s+/);
  const at = tokens.findIndex((t) => KEY_TYPES.has(t));
  if (at < 0) return 'no known key type (ssh-rsa, ssh-ed25519, ecdsa-sha2-nistp256, …)';
  const type = tokens[at]!;
  const blob = tokens[at + 1];
  if (!blob) return `no key after ${type}`;
  const embedded = blobKeyType(blob);
  if (embedded === undefined) return 'the key is not a valid base64 OpenSSH public key';
  if (embedded !== type) return `the key is a ${embedded} key, not ${type}`;
  return undefined;
}
