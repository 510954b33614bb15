import { homedir } from 'node:os';
import { join } from 'node:path';
import { runCommand } from '@stackops/lib-common/testing';
import { pinnedKeystoneVersion, supportFile } from './support-files.js';

export interface KeystoneVenv {
  dir: string;
  version: string;
  python: string;
  keystoneManage: string;
}

/** `${XDG_CACHE_HOME:-~/.cache}/stackops/keystone-venv/<version>` (outside the repo, kept between runs). */
export function keystoneVenvDir(version: string = pinnedKeystoneVersion()): string {
  const xdg = process.env.XDG_CACHE_HOME;
  const base = xdg && xdg.length > 0 ? xdg : join(homedir(), '.cache');
  return join(base, 'stackops', 'keystone-venv', version);
}

const INSTALL_TIMEOUT_MS = 15 * 60_000;

/**
 * Makes sure the pinned Keystone is installed (test/support/keystone-server/install-venv.sh: a no-op
 * when the venv is complete, a pip install from PyPI otherwise) and says where it is.
 */
export async function ensureKeystoneVenv(): Promise<KeystoneVenv> {
  const version = pinnedKeystoneVersion();
  const dir = keystoneVenvDir(version);
  await runCommand('bash', [supportFile('install-venv.sh'), dir], { timeoutMs: INSTALL_TIMEOUT_MS });
  return {
    dir,
    version,
    python: join(dir, 'bin', 'python'),
    keystoneManage: join(dir, 'bin', 'keystone-manage'),
  };
}
