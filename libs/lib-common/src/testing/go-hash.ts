import { createHash } from 'node:crypto';

/**
 * A Job hash as the Go operators record it in `status.hash` (`fmt.Sprint` of the SHA-256 bytes,
 * `[12 201 …]`, each character mapped into their safe alphabet): what a status written by the Go
 * operator carries at the switch (ADR 0048).
 */
export const goOperatorHash = (value: string): string =>
  `[${[...createHash('sha256').update(value).digest()].join(' ')}]`.replace(
    /./g,
    (ch) => 'bcdfghjklmnpqrstvwxz2456789'[ch.charCodeAt(0) % 27]!,
  );
