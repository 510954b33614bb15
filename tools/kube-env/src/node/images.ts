import { spawn } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { downloadModule } from '../build/go.js';
import type { CacheLayout } from '../paths.js';
import { run } from '../util/run.js';
import { versions } from '../versions.js';
import { pauseImage } from './config.js';

/** One entry of a single-layer image: a file (copied from `source`, with `mode`) or a symbolic link. */
type ImageFile = { path: string; source: string; mode: number } | { path: string; symlink: string };

export interface SingleLayerImage {
  /** The full reference containerd will know it by, e.g. `registry.k8s.io/pause:3.10.1`. */
  name: string;
  files: readonly ImageFile[];
  entrypoint: readonly string[];
  user?: string;
  /** Where the OCI archive (a tar of an OCI layout) is written. */
  output: string;
}

/**
 * Builds a one-layer image with crane: the files are tarred reproducibly (fixed owner, time and
 * order), appended to an empty base in an in-memory registry on 127.0.0.1, given its entrypoint,
 * pulled into an OCI layout named for containerd, and tarred.
 */
export async function buildSingleLayerImage(crane: string, image: SingleLayerImage): Promise<void> {
  const work = mkdtempSync(join(dirname(image.output), '.image-'));
  const registry = await startRegistry(crane);
  try {
    const root = join(work, 'rootfs');
    for (const file of image.files) {
      const target = join(root, file.path);
      mkdirSync(dirname(target), { recursive: true });
      if ('symlink' in file) {
        symlinkSync(file.symlink, target);
      } else {
        copyFileSync(file.source, target);
        chmodSync(target, file.mode);
      }
    }
    const layer = join(work, 'layer.tar');
    await run(reproducibleTar(root, layer));
    const staged = `${registry.host}/kube-env/${basename(image.output).replace(/[^a-z0-9]/g, '-')}:build`;
    await run([crane, 'append', '--oci-empty-base', '-f', layer, '-t', staged]);
    await run([
      crane,
      'mutate',
      staged,
      '--entrypoint',
      image.entrypoint.join(','),
      ...(image.user ? ['--user', image.user] : []),
      '--set-platform',
      'linux/amd64',
      '-t',
      staged,
    ]);
    const layout = join(work, 'oci');
    await run([crane, 'pull', '--format=oci', staged, layout]);
    nameLayout(layout, image.name);
    // Unique, so two processes building the same image at once each rename a whole file into place.
    const tmp = `${image.output}.${process.pid}.tmp`;
    await run(reproducibleTar(layout, tmp));
    renameSync(tmp, image.output);
  } finally {
    await registry.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

/** A tar of a folder that depends only on its contents (order, owners and times fixed). */
function reproducibleTar(dir: string, output: string): string[] {
  return [
    'tar',
    '--sort=name',
    '--mtime=@0',
    '--owner=0',
    '--group=0',
    '--numeric-owner',
    '--format=posix',
    '--pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime',
    '-C',
    dir,
    '-cf',
    output,
    '.',
  ];
}

/** containerd names an imported image after `io.containerd.image.name` in the layout's index. */
function nameLayout(layout: string, name: string): void {
  const indexFile = join(layout, 'index.json');
  const index = JSON.parse(readFileSync(indexFile, 'utf8')) as {
    manifests: Array<{ annotations?: Record<string, string> }>;
  };
  if (index.manifests.length !== 1) throw new Error(`${layout}: expected one manifest in index.json`);
  const tag = name.slice(name.lastIndexOf(':') + 1);
  for (const manifest of index.manifests) {
    manifest.annotations = { 'io.containerd.image.name': name, 'org.opencontainers.image.ref.name': tag };
  }
  writeFileSync(indexFile, JSON.stringify(index));
}

interface Registry {
  host: string;
  stop(): Promise<void>;
}

/** `crane registry serve` on 127.0.0.1 with a kernel-chosen port, read back from its log line. */
function startRegistry(crane: string): Promise<Registry> {
  const child = spawn(crane, ['registry', 'serve', '--address', '127.0.0.1:0'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`crane registry serve did not start: ${log}`));
    }, 15_000);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      log += chunk.toString();
      const port = /serving on port (\d+)/.exec(log)?.[1];
      if (!port) return;
      clearTimeout(timer);
      child.stderr.removeAllListeners('data');
      child.stderr.resume();
      resolve({
        host: `127.0.0.1:${port}`,
        stop: () =>
          new Promise<void>((done) => {
            if (child.exitCode !== null || child.signalCode !== null) return done();
            child.once('exit', () => done());
            child.kill('SIGTERM');
          }),
      });
    });
  });
}

/**
 * The pod sandbox image: kubernetes' own pause.c from the pinned module, compiled statically as
 * upstream's Makefile does, in an image of one file. Cached beside the binaries.
 */
export async function ensurePauseImage(cache: CacheLayout): Promise<string> {
  const output = join(cache.root, 'images', `pause-${pauseImage.split(':')[1]}.oci.tar`);
  if (existsSync(output)) return output;
  mkdirSync(dirname(output), { recursive: true });
  const { dir } = await downloadModule('k8s.io/kubernetes', versions.kubernetes, cache.src, cache.buildLog);
  const work = mkdtempSync(join(dirname(output), '.pause-'));
  try {
    const binary = join(work, 'pause');
    const tag = pauseImage.split(':')[1];
    await run(
      [
        'gcc',
        '-Os',
        '-Wall',
        '-Werror',
        '-static',
        `-DVERSION=v${tag}-kube-env`,
        '-o',
        binary,
        join(dir, 'build', 'pause', 'linux', 'pause.c'),
      ],
      { logFile: cache.buildLog },
    );
    await buildSingleLayerImage(join(cache.bin, 'crane'), {
      name: pauseImage,
      files: [{ path: 'pause', source: binary, mode: 0o755 }],
      entrypoint: ['/pause'],
      user: '65535:65535',
      output,
    });
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return output;
}

/**
 * Imports image archives (docker or OCI tar) or OCI layout folders into the node's containerd, in
 * the namespace the CRI uses, and returns the image names containerd reported.
 */
export async function importImages(containerdSocket: string, paths: readonly string[]): Promise<string[]> {
  const names: string[] = [];
  for (const path of paths) {
    if (!existsSync(path)) throw new Error(`image ${path} does not exist`);
    const ctr = ['ctr', '--address', containerdSocket, '--namespace', 'k8s.io', 'images', 'import'];
    const output = statSync(path).isDirectory()
      ? await importLayout(ctr, path)
      : (await run([...ctr, path])).stdout;
    const found = [...output.matchAll(/^unpacking (\S+) \(sha256:[0-9a-f]+\)/gm)].map((m) => m[1] ?? '');
    if (found.length === 0) throw new Error(`ctr imported no named image from ${path}:\n${output}`);
    names.push(...found);
  }
  return names;
}

/** An OCI layout folder goes to `ctr images import -` as a tar stream. */
function importLayout(ctr: string[], layout: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const tar = spawn('tar', ['-C', layout, '-cf', '-', '.'], { stdio: ['ignore', 'pipe', 'pipe'] });
    const [file = 'ctr', ...args] = ctr;
    const importer = spawn(file, [...args, '-'], { stdio: ['pipe', 'pipe', 'pipe'] });
    tar.stdout.pipe(importer.stdin);
    // ctr may stop reading at the archive's end marker while tar still writes its record padding:
    // that write meets a closed pipe. ctr's exit code and output judge the import, so an EPIPE
    // here is not an error (unhandled, it would crash the caller).
    importer.stdin.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code !== 'EPIPE') reject(e);
    });
    let out = '';
    let err = '';
    importer.stdout.on('data', (c: Buffer) => {
      out += c.toString();
    });
    importer.stderr.on('data', (c: Buffer) => {
      err += c.toString();
    });
    tar.stderr.on('data', (c: Buffer) => {
      err += c.toString();
    });
    importer.on('error', reject);
    importer.on('close', (code) =>
      code === 0
        ? resolve(out)
        : reject(new Error(`ctr images import of ${layout} failed (${code}): ${err}`)),
    );
  });
}
