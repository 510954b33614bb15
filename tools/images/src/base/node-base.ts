import {
  chmodSync,
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type DebianPackage,
  downloadPackages,
  extractPackage,
  resolvePackages,
} from '@stackops/kube-env/debian';
import { tarDirectory } from '../tar.js';
import { exec } from '../util/exec.js';
import { sha256FileHex, sha256Hex } from '../util/hash.js';
import { caBundle, statusEntry } from './debian.js';
import { type NodeBinary, verifiedNodeBinary } from './node-binary.js';

/**
 * The Debian packages the base takes files from: the C and C++ runtime node links against, the
 * CA bundle, and base-files for /etc/os-release (scanners find the distribution there).
 * gcc-12-base carries the copyright file that libgcc-s1 and libstdc++6 point to. The build fails
 * if node needs a library none of them has.
 */
export const debianPackages = [
  'libc6',
  'libgcc-s1',
  'gcc-12-base',
  'libstdc++6',
  'ca-certificates',
  'base-files',
];

/** The unprivileged user every image runs as, as in distroless images. */
export const nonroot = { name: 'nonroot', uid: 65532, gid: 65532, home: '/home/nonroot' } as const;

/** Where the base puts node; the operator images' entrypoint runs it. */
export const nodePath = '/usr/local/bin/node';

/** Bump to rebuild every cached base (the code's hash covers changes to this folder). */
const baseRecipe = 1;

export interface NodeBase {
  /** The base layer as an uncompressed tar. */
  tar: string;
  /** Hash of its inputs; the tar is reused while it is unchanged. */
  key: string;
  node: Omit<NodeBinary, 'path' | 'license'>;
  packages: Array<Required<Pick<DebianPackage, 'name' | 'version' | 'architecture' | 'sha256'>>>;
  /** The shared libraries node loads, as placed in the image. */
  libraries: string[];
  /** The layer's history entry. */
  description: string;
}

export interface NodeBaseOptions {
  root: string;
  /** Cache folder: downloads, the verified-binary record, the base tar. */
  workDir: string;
  /** Layer mtimes (see `nodeBaseEpoch`). */
  epoch: number;
  progress: (line: string) => void;
}

/**
 * What decides the base besides node and the .debs: this folder's code and the root package.json
 * (which pins node). The base's mtimes are the last commit that changed them, so the base layer
 * stays byte-identical across commits that do not, and nodes and registries keep one copy.
 */
export const nodeBaseSources = ['tools/images/src/base', 'package.json'];

/** This module's own code, so that an uncommitted change to the recipe is not served from the cache. */
async function recipeHash(): Promise<string> {
  const dir = dirname(fileURLToPath(import.meta.url));
  const files = readdirSync(dir)
    .filter((f) => /\.[cm]?[jt]s$/.test(f) && !f.includes('.test.'))
    .sort();
  return sha256Hex((await Promise.all(files.map((f) => sha256FileHex(join(dir, f))))).join());
}

/**
 * The distroless-like base layer: node, the libraries it loads, the CA bundle, a nonroot user,
 * /tmp, and the packages' copyright files and dpkg status entries. Rebuilt only when node, a
 * package version or the epoch changes.
 */
export async function prepareNodeBase(options: NodeBaseOptions): Promise<NodeBase> {
  const { root, workDir, epoch, progress } = options;
  const baseDir = join(workDir, 'base');
  const node = await verifiedNodeBinary(root, baseDir, progress);
  const resolved = await resolvePackages(debianPackages, 'amd64', progress);
  const key = sha256Hex(
    JSON.stringify({
      baseRecipe,
      code: await recipeHash(),
      node: node.sha256,
      packages: resolved.map((p) => p.sha256),
      epoch,
    }),
  ).slice(0, 32);
  const tar = join(baseDir, `base-${key}.tar`);
  const recordFile = join(baseDir, `base-${key}.json`);
  if (existsSync(tar) && existsSync(recordFile))
    return JSON.parse(readFileSync(recordFile, 'utf8')) as NodeBase;

  const started = Date.now();
  const packages = await downloadPackages(resolved, join(workDir, 'debs'), progress);
  const staging = join(baseDir, `staging-${process.pid}`);
  rmSync(staging, { recursive: true, force: true });
  try {
    const extracted = new Map<string, string>();
    for (const p of packages) {
      const dir = join(staging, 'debs', p.name);
      await extractPackage(p.deb!, dir);
      extracted.set(p.name, dir);
    }
    const rootfs = join(staging, 'rootfs');
    const libraries = await assembleRootfs(rootfs, node, packages, extracted);
    const tmpTar = `${tar}.tmp-${process.pid}`;
    await tarDirectory(rootfs, tmpTar, {
      epoch,
      owners: [{ path: nonroot.home.slice(1), uid: nonroot.uid, gid: nonroot.gid }],
    });
    pruneOldBases(baseDir);
    const { path: _p, license: _l, ...nodeInfo } = node;
    const base: NodeBase = {
      tar,
      key,
      node: nodeInfo,
      packages: packages.map(({ name, version, architecture, sha256 }) => ({
        name,
        version,
        architecture,
        sha256,
      })),
      libraries,
      description: `stackops node base: node ${node.version}, ${packages.map((p) => `${p.name} ${p.version}`).join(', ')}`,
    };
    await exec(['mv', tmpTar, tar]);
    writeFileSync(recordFile, `${JSON.stringify(base, null, 2)}\n`);
    progress(`images: base layer ${key} assembled in ${((Date.now() - started) / 1000).toFixed(1)}s`);
    return base;
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/** Keeps the newest bases (e.g. the CLI's and the tests', whose code hashes differ) and drops the rest. */
function pruneOldBases(baseDir: string, keep = 2): void {
  const tars = readdirSync(baseDir)
    .filter((f) => /^base-[0-9a-f]+\.tar$/.test(f))
    .map((f) => ({ f, mtime: statSync(join(baseDir, f)).mtimeMs }))
    .sort((a, b) => b.mtime - a.mtime);
  for (const { f } of tars.slice(keep - 1)) {
    rmSync(join(baseDir, f), { force: true });
    rmSync(join(baseDir, f.replace(/\.tar$/, '.json')), { force: true });
  }
}

function writeFile(rootfs: string, path: string, content: string, mode = 0o644): void {
  const target = join(rootfs, path);
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, content);
  chmodSync(target, mode);
}

/**
 * Copies `path` (absolute inside the package) from an extracted package into the rootfs. A
 * symlink is copied as a symlink and its target follows, so `libstdc++.so.6 → libstdc++.so.6.0.30`
 * keeps the package's layout.
 */
function copyFromPackage(pkgRoot: string, rootfs: string, path: string): void {
  const source = join(pkgRoot, path);
  const target = join(rootfs, path);
  const stat = lstatSync(source);
  mkdirSync(dirname(target), { recursive: true });
  if (stat.isSymbolicLink()) {
    const link = readlinkSync(source);
    rmSync(target, { force: true });
    symlinkSync(link, target);
    copyFromPackage(pkgRoot, rootfs, isAbsolute(link) ? link : resolve(dirname(path), link));
  } else if (stat.isFile()) {
    copyFileSync(source, target);
    chmodSync(target, stat.mode & 0o7777);
  } else {
    throw new Error(`${source}: neither a file nor a symlink`);
  }
}

/** Which extracted package holds `path` (absolute), if any. */
function packageHolding(extracted: Map<string, string>, path: string): string | undefined {
  for (const [name, dir] of extracted) {
    try {
      lstatSync(join(dir, path));
      return name;
    } catch {}
  }
  return undefined;
}

/**
 * The libraries node loads, resolved by the packages' own dynamic loader (`ld.so --list`, what
 * `ldd` runs) with only the packages' library folders on its path. A library found anywhere else
 * is missing from `debianPackages`.
 */
async function nodeLibraries(nodeBinary: string, extracted: Map<string, string>): Promise<string[]> {
  const libcDir = join(extracted.get('libc6')!, 'lib', 'x86_64-linux-gnu');
  const loader = readdirSync(libcDir).find((f) => /^ld-linux.*\.so\.\d+$/.test(f));
  if (loader === undefined) throw new Error(`libc6 has no dynamic loader in ${libcDir}`);
  const libraryDirs: string[] = [];
  for (const dir of extracted.values()) {
    for (const d of ['lib/x86_64-linux-gnu', 'usr/lib/x86_64-linux-gnu']) {
      if (existsSync(join(dir, d))) libraryDirs.push(join(dir, d));
    }
  }
  const listing = await exec([
    join(libcDir, loader),
    '--library-path',
    libraryDirs.join(':'),
    '--list',
    nodeBinary,
  ]);
  const libraries: string[] = [];
  for (const line of listing.split('\n')) {
    const match = /^\s*(\S+) => (.+?)(?: \(0x[0-9a-f]+\))?$/.exec(line);
    if (!match) continue; // linux-vdso.so.1: provided by the kernel
    const [, soname, found] = match;
    const owner = [...extracted.values()].find((dir) => found!.startsWith(`${dir}/`));
    if (owner === undefined) {
      throw new Error(
        `node needs ${soname}, which none of the Debian packages ${[...extracted.keys()].join(', ')} provides (${found}); add its package to debianPackages`,
      );
    }
    // The program interpreter is loaded by the path written in node (/lib64/ld-linux-x86-64.so.2).
    libraries.push(soname!.startsWith('/') ? soname! : `/${relative(owner, found!)}`);
  }
  return libraries.sort();
}

async function assembleRootfs(
  rootfs: string,
  node: NodeBinary,
  packages: readonly DebianPackage[],
  extracted: Map<string, string>,
): Promise<string[]> {
  mkdirSync(rootfs, { recursive: true });

  writeFile(rootfs, nodePath, '', 0o755);
  copyFileSync(node.path, join(rootfs, nodePath));
  writeFile(rootfs, '/usr/local/share/doc/node/LICENSE', readFileSync(node.license, 'utf8'));

  const libraries = await nodeLibraries(node.path, extracted);
  for (const lib of libraries) copyFromPackage(extracted.get(packageHolding(extracted, lib)!)!, rootfs, lib);

  writeFile(rootfs, '/etc/ssl/certs/ca-certificates.crt', caBundle(extracted.get('ca-certificates')!));
  const baseFiles = extracted.get('base-files')!;
  for (const f of ['/etc/os-release', '/etc/debian_version']) copyFromPackage(baseFiles, rootfs, f);

  writeFile(
    rootfs,
    '/etc/passwd',
    [
      'root:x:0:0:root:/root:/sbin/nologin',
      'nobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin',
      `${nonroot.name}:x:${nonroot.uid}:${nonroot.gid}:${nonroot.name}:${nonroot.home}:/sbin/nologin`,
      '',
    ].join('\n'),
  );
  writeFile(
    rootfs,
    '/etc/group',
    ['root:x:0:', 'nobody:x:65534:', `${nonroot.name}:x:${nonroot.gid}:`, ''].join('\n'),
  );
  // glibc's default without this file asks DNS before /etc/hosts, which kubelet writes.
  writeFile(rootfs, '/etc/nsswitch.conf', 'passwd: files\ngroup: files\nhosts: files dns\n');

  for (const p of packages) {
    const pkgRoot = extracted.get(p.name)!;
    const doc = `/usr/share/doc/${p.name}`;
    // libgcc-s1 and libstdc++6 ship their doc folder as a symlink to gcc-12-base's.
    const docStat = lstatSync(join(pkgRoot, doc));
    if (docStat.isSymbolicLink()) {
      const target = readlinkSync(join(pkgRoot, doc));
      if (!packages.some((q) => q.name === target)) {
        throw new Error(`${p.name}'s ${doc} points to ${target}, which is not among debianPackages`);
      }
      mkdirSync(dirname(join(rootfs, doc)), { recursive: true });
      symlinkSync(target, join(rootfs, doc));
    } else {
      copyFromPackage(pkgRoot, rootfs, `${doc}/copyright`);
    }
    writeFile(rootfs, `/var/lib/dpkg/status.d/${p.name}`, await statusEntry(p.deb!));
  }

  for (const dir of ['/tmp', '/root', nonroot.home]) mkdirSync(join(rootfs, dir), { recursive: true });
  normaliseDirectoryModes(rootfs);
  chmodSync(join(rootfs, 'tmp'), 0o1777);
  chmodSync(join(rootfs, 'root'), 0o700);
  chmodSync(join(rootfs, nonroot.home), 0o700);
  return libraries;
}

/** Every folder 0755 whatever the umask (the archive records modes). */
function normaliseDirectoryModes(dir: string): void {
  chmodSync(dir, 0o755);
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) normaliseDirectoryModes(join(dir, entry.name));
  }
}
