import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { type Crane, type LoopbackRegistry, locateCrane, startRegistry } from './crane.js';
import { type ImageName, parseImageName } from './image-name.js';
import { repoRoot, type SourceInfo, sourceInfo } from './source.js';
import { type Ownership, reproducibleTarFlags, tarDirectory } from './tar.js';
import { withBuildLock } from './util/build-lock.js';
import { exec } from './util/exec.js';
import { sha256FileHex, sha256Hex } from './util/hash.js';

/** The default platform; an ImageSpec names another (the operators' arm64 images). */
export const platform = 'linux/amd64';

/**
 * Bumped when the way images are put together changes (tar flags, config stamping, output
 * layout), so that cached outputs of the old recipe are rebuilt.
 */
export const recipeRevision = 1;

/** One layer: a folder (archived reproducibly here) or an uncompressed tar the caller made. */
export type LayerSource =
  | {
      dir: string;
      /** Paths in the layer owned by someone other than root, e.g. `home/nonroot` → 65532:65532. */
      owners?: readonly Ownership[];
      /** The layer's history entry (`created_by`); keep machine paths out of it (they change the digest). */
      description?: string;
    }
  | { tar: string; description?: string };

/** What a Dockerfile's ENTRYPOINT, CMD, USER, ENV, WORKDIR, LABEL and EXPOSE would set. */
export interface ImageConfig {
  entrypoint?: string[];
  cmd?: string[];
  /** Numeric `uid:gid`, so that Kubernetes' runAsNonRoot can check it. */
  user?: string;
  env?: Record<string, string>;
  workdir?: string;
  labels?: Record<string, string>;
  /** e.g. `5000/tcp`. */
  exposedPorts?: string[];
}

export interface ImageSpec {
  /** The full reference the image is known by: `<registry>/<repository>:<tag>`. */
  name: string;
  /** Bottom first. Layers equal in content and position are shared between images of one builder. */
  layers: readonly LayerSource[];
  config: ImageConfig;
  /** Default `platform` (linux/amd64); another one is written next to it, `<tag>@<os>-<arch>`. */
  platform?: string;
}

export interface LayerInfo {
  /** Digest of the gzip blob, as in the manifest. */
  digest: string;
  /** Digest of the uncompressed tar, as in the config's rootfs.diff_ids. */
  diffId: string;
  size: number;
  uncompressedSize: number;
  description?: string;
}

export interface BuiltImage {
  name: string;
  /** The manifest digest: what a registry, containerd and `crane digest` report. */
  digest: string;
  configDigest: string;
  platform: string;
  layers: LayerInfo[];
  /** Sum of the layers' gzip sizes (what a pull transfers). */
  compressedSize: number;
  /** Sum of the layers' tar sizes (what a node unpacks). */
  uncompressedSize: number;
  /** The OCI image layout folder (one image; `crane push <ociLayout> <ref>` pushes it). */
  ociLayout: string;
  /** The same layout as one tar: `ctr images import`, `docker load` (25+), `podman load`. */
  archive: string;
  /** Hash of everything the image is made from; an equal key means the outputs are reused. */
  key: string;
  /** True when the outputs of an earlier build with the same key were reused. */
  cached: boolean;
}

export interface BuilderOptions {
  /** Default: `<repo>/build/images`. */
  outDir?: string;
  /** Default: the HEAD commit and its time (see `sourceInfo`). */
  source?: SourceInfo;
  /** Default: kube-env's pinned crane (see `locateCrane`). */
  crane?: Crane;
  /** Rebuild even when outputs with the same key exist. */
  force?: boolean;
  /** Progress lines (default: stderr). */
  progress?: (line: string) => void;
}

export interface ImageBuilder {
  readonly outDir: string;
  readonly source: SourceInfo;
  readonly crane: Crane;
  /** The folder for intermediate files (layer tars, downloads); kept between builds as a cache. */
  readonly workDir: string;
  build(spec: ImageSpec): Promise<BuiltImage>;
}

export function defaultOutDir(): string {
  return join(repoRoot(), 'build', 'images');
}

/** `<outDir>/<registry>/<repository>/<tag>`: the outputs of one image. */
export function imageDir(outDir: string, name: ImageName): string {
  return join(outDir, name.registry, ...name.repository.split('/'), name.tag);
}

/** Where an image for a platform other than the default goes: beside the default one. */
export function platformDir(dir: string, imagePlatform: string | undefined): string {
  return imagePlatform === undefined || imagePlatform === platform
    ? dir
    : `${dir}@${imagePlatform.replace('/', '-')}`;
}

/**
 * Opens a builder (one loopback registry, one lock on the output folder), runs `body`, and closes
 * it. Several images built in one body share their common bottom layers: each distinct layer is
 * compressed and stored once.
 */
export async function withImageBuilder<T>(
  options: BuilderOptions,
  body: (builder: ImageBuilder) => Promise<T>,
): Promise<T> {
  const progress = options.progress ?? ((line: string) => process.stderr.write(`${line}\n`));
  const outDir = options.outDir ?? defaultOutDir();
  const source = options.source ?? (await sourceInfo());
  const crane = options.crane ?? (await locateCrane(progress));
  return withBuildLock(
    outDir,
    (pid) => progress(`images: another build (pid ${pid}) is writing ${outDir}; waiting for it`),
    async () => {
      const session = new Session(outDir, source, crane, options.force ?? false, progress);
      try {
        return await body(session);
      } finally {
        await session.close();
      }
    },
  );
}

/** Builds one image (see `withImageBuilder` to build several that share layers). */
export function buildImage(spec: ImageSpec, options: BuilderOptions = {}): Promise<BuiltImage> {
  return withImageBuilder(options, (builder) => builder.build(spec));
}

interface PreparedLayer {
  tar: string;
  diffId: string;
  uncompressedSize: number;
  description: string | undefined;
}

/** Each `--flag` value of crane's list flags is read as CSV: quote it so commas stay in the value. */
function csvField(value: string): string {
  return `"${value.replaceAll('"', '""')}"`;
}

class Session implements ImageBuilder {
  readonly workDir: string;
  /** Folders' tars of this session; removed on close. */
  private readonly tmpDir: string;
  private tmpCount = 0;
  private registry: LoopbackRegistry | undefined;
  private craneVersion: string | undefined;
  /** Prefix key (hash of the layers so far) → a registry reference holding exactly those layers. */
  private readonly prefixes = new Map<string, string>();
  private readonly digests = new Map<string, string>();

  constructor(
    readonly outDir: string,
    readonly source: SourceInfo,
    readonly crane: Crane,
    private readonly force: boolean,
    private readonly progress: (line: string) => void,
  ) {
    this.workDir = join(outDir, '.work');
    this.tmpDir = join(this.workDir, `session-${process.pid}`);
    rmSync(this.tmpDir, { recursive: true, force: true });
    mkdirSync(this.tmpDir, { recursive: true });
  }

  async close(): Promise<void> {
    await this.registry?.stop();
    this.registry = undefined;
    rmSync(this.tmpDir, { recursive: true, force: true });
  }

  async build(spec: ImageSpec): Promise<BuiltImage> {
    const name = parseImageName(spec.name);
    if (spec.layers.length === 0) throw new Error(`${spec.name}: an image needs at least one layer`);
    this.craneVersion ??= await this.crane.version();
    const layers: PreparedLayer[] = [];
    for (const layer of spec.layers) layers.push(await this.prepareLayer(layer));
    const key = sha256Hex(
      JSON.stringify({
        recipeRevision,
        crane: this.craneVersion,
        platform: spec.platform ?? platform,
        source: this.source,
        name: spec.name,
        layers: layers.map((l) => [l.diffId, l.description]),
        config: spec.config,
      }),
    );
    const dir = platformDir(imageDir(this.outDir, name), spec.platform);
    const recordFile = join(dir, 'image.json');
    if (!this.force && existsSync(recordFile)) {
      const record = JSON.parse(readFileSync(recordFile, 'utf8')) as BuiltImage;
      if (record.key === key && existsSync(record.ociLayout) && existsSync(record.archive)) {
        return { ...record, cached: true };
      }
    }
    const started = Date.now();
    const built = await this.assemble(spec, name, layers, key, dir);
    this.progress(`images: built ${spec.name} in ${((Date.now() - started) / 1000).toFixed(1)}s`);
    return built;
  }

  /** A folder is archived (its digest is only known then); a tar is used in place. */
  private async prepareLayer(layer: LayerSource): Promise<PreparedLayer> {
    let tar: string;
    if ('tar' in layer) {
      tar = layer.tar;
    } else {
      tar = join(this.tmpDir, `layer-${++this.tmpCount}.tar`);
      await tarDirectory(layer.dir, tar, { epoch: this.source.epoch, owners: layer.owners ?? [] });
    }
    return {
      tar,
      diffId: `sha256:${await this.digestOf(tar)}`,
      uncompressedSize: statSync(tar).size,
      description: layer.description,
    };
  }

  /** A tar used by several images of the session (the base) is hashed once. */
  private async digestOf(tar: string): Promise<string> {
    const { size, mtimeMs, ino } = statSync(tar);
    const id = `${tar}\0${ino}\0${size}\0${mtimeMs}`;
    let digest = this.digests.get(id);
    if (digest === undefined) {
      digest = await sha256FileHex(tar);
      this.digests.set(id, digest);
    }
    return digest;
  }

  private async loopback(): Promise<LoopbackRegistry> {
    this.registry ??= await startRegistry(this.crane);
    return this.registry;
  }

  /** A registry reference holding exactly `layers`, appending to the longest prefix already pushed. */
  private async pushLayers(layers: readonly PreparedLayer[]): Promise<string> {
    const { host } = await this.loopback();
    let prefixKey = '';
    let ref: string | undefined;
    for (const layer of layers) {
      prefixKey = sha256Hex(`${prefixKey}\n${layer.diffId}`);
      const known = this.prefixes.get(prefixKey);
      if (known !== undefined) {
        ref = known;
        continue;
      }
      const target = `${host}/layers:${prefixKey}`;
      const base = ref === undefined ? ['--oci-empty-base'] : ['--base', ref];
      await this.crane.run(['append', ...base, '--new_layer', layer.tar, '--new_tag', target]);
      this.prefixes.set(prefixKey, target);
      ref = target;
    }
    if (ref === undefined) throw new Error('no layers');
    return ref;
  }

  private async assemble(
    spec: ImageSpec,
    name: ImageName,
    layers: readonly PreparedLayer[],
    key: string,
    dir: string,
  ): Promise<BuiltImage> {
    const { host } = await this.loopback();
    const layersRef = await this.pushLayers(layers);
    const unstamped = `${host}/${name.repository}:unstamped-${key}`;
    const final = `${host}/${name.repository}:${name.tag}`;

    const c = spec.config;
    const mutate = ['mutate', layersRef, '--set-platform', spec.platform ?? platform, '--tag', unstamped];
    for (const e of c.entrypoint ?? []) mutate.push(`--entrypoint=${csvField(e)}`);
    for (const e of c.cmd ?? []) mutate.push(`--cmd=${csvField(e)}`);
    if (c.user !== undefined) mutate.push('--user', c.user);
    if (c.workdir !== undefined) mutate.push('--workdir', c.workdir);
    for (const [k, v] of Object.entries(c.env ?? {})) mutate.push('--env', `${k}=${v}`);
    for (const [k, v] of Object.entries(c.labels ?? {})) mutate.push(`--label=${csvField(`${k}=${v}`)}`);
    for (const p of c.exposedPorts ?? []) mutate.push(`--exposed-ports=${csvField(p)}`);
    await this.crane.run(mutate);

    // crane has no flag for the creation time: stamp `created` and the history through `edit config`.
    const config = JSON.parse(await this.crane.run(['config', unstamped])) as {
      created?: string;
      history?: Array<Record<string, unknown>>;
      rootfs?: { diff_ids?: string[] };
    };
    const diffIds = config.rootfs?.diff_ids ?? [];
    if (diffIds.join() !== layers.map((l) => l.diffId).join()) {
      throw new Error(`${spec.name}: crane's diff_ids ${diffIds.join()} differ from the layers' tars`);
    }
    const created = new Date(this.source.epoch * 1000).toISOString().replace('.000Z', 'Z');
    config.created = created;
    config.history = layers.map((l) =>
      l.description === undefined ? { created } : { created, created_by: l.description },
    );
    await this.crane.run(['edit', 'config', unstamped, '--tag', final], JSON.stringify(config));

    const digest = (await this.crane.run(['digest', final])).trim();
    const manifest = JSON.parse(await this.crane.run(['manifest', final])) as {
      config: { digest: string };
      layers: Array<{ digest: string; size: number }>;
    };

    const staging = `${dir}.tmp-${process.pid}`;
    rmSync(staging, { recursive: true, force: true });
    mkdirSync(staging, { recursive: true });
    const ociLayout = join(staging, 'oci');
    await this.crane.run(['pull', '--format=oci', final, ociLayout]);
    nameLayout(ociLayout, spec.name, name.tag, digest);
    await exec([
      'tar',
      ...reproducibleTarFlags(this.source.epoch),
      '--owner=0',
      '--group=0',
      '-C',
      ociLayout,
      '-cf',
      join(staging, 'image.oci.tar'),
      'blobs',
      'index.json',
      'oci-layout',
    ]);

    const built: BuiltImage = {
      name: spec.name,
      digest,
      configDigest: manifest.config.digest,
      platform: spec.platform ?? platform,
      layers: manifest.layers.map((blob, i) => {
        const layer = layers[i]!;
        return {
          digest: blob.digest,
          diffId: layer.diffId,
          size: blob.size,
          uncompressedSize: layer.uncompressedSize,
          ...(layer.description === undefined ? {} : { description: layer.description }),
        };
      }),
      compressedSize: manifest.layers.reduce((sum, l) => sum + l.size, 0),
      uncompressedSize: layers.reduce((sum, l) => sum + l.uncompressedSize, 0),
      ociLayout: join(dir, 'oci'),
      archive: join(dir, 'image.oci.tar'),
      key,
      cached: false,
    };
    writeFileSync(join(staging, 'image.json'), `${JSON.stringify(built, null, 2)}\n`);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dirname(dir), { recursive: true });
    renameSync(staging, dir);
    return built;
  }
}

/**
 * crane pulls into a layout without naming the image (it could only name it after the loopback
 * registry it pulled from). index.json is not content-addressed, so naming it changes no digest:
 * containerd imports by `io.containerd.image.name`; the OCI spec's ref.name is the tag.
 */
function nameLayout(layout: string, fullName: string, tag: string, digest: string): void {
  const indexFile = join(layout, 'index.json');
  const index = JSON.parse(readFileSync(indexFile, 'utf8')) as {
    manifests: Array<{ digest: string; annotations?: Record<string, string> }>;
  };
  const [only, ...rest] = index.manifests;
  if (only === undefined || rest.length > 0 || only.digest !== digest) {
    throw new Error(
      `${layout}: expected one manifest ${digest} in index.json, found ${JSON.stringify(index)}`,
    );
  }
  only.annotations = {
    'io.containerd.image.name': fullName,
    'org.opencontainers.image.ref.name': tag,
  };
  writeFileSync(indexFile, JSON.stringify(index));
}
