import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';

export const sha256Hex = (data: string | Buffer): string => createHash('sha256').update(data).digest('hex');

/** Streams the file, so a 130 MB binary is not read into memory at once. */
export function hashFile(path: string, algorithm: 'sha256' | 'sha512' = 'sha256'): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const hash = createHash(algorithm);
    createReadStream(path)
      .on('data', (chunk) => hash.update(chunk))
      .on('error', reject)
      .on('end', () => resolve(hash.digest()));
  });
}

export async function sha256FileHex(path: string): Promise<string> {
  return (await hashFile(path)).toString('hex');
}
