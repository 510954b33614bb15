import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * test/support/keystone-server/ of this package: the venv install script, the Python server and the
 * pinned versions. Both src/testing/ and dist/testing/ sit two levels below the package root.
 */
const keystoneSupportDir = fileURLToPath(new URL('../../test/support/keystone-server/', import.meta.url));

export function supportFile(name: string): string {
  return `${keystoneSupportDir}${name}`;
}

/** The Keystone release the tests install (test/support/keystone-server/keystone-version.txt). */
export function pinnedKeystoneVersion(): string {
  return readFileSync(supportFile('keystone-version.txt'), 'utf8').trim();
}
