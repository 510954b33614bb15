import {
  chmodSync,
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { parse } from 'yaml';
import { type Arm64Base, arm64, arm64BaseSources, prepareArm64Base } from './arm64.js';
import { type NodeBase, nodeBaseSources, nodePath, nonroot, prepareNodeBase } from './base/node-base.js';
import { nodeBinaryPath } from './base/node-binary.js';
import { buildCompileCache } from './compile-cache.js';
import {
  type BuilderOptions,
  type BuiltImage,
  defaultOutDir,
  type ImageConfig,
  imageDir,
  withImageBuilder,
} from './image-builder.js';
import { type BuiltIndex, writeImageIndex } from './image-index.js';
import { parseImageName } from './image-name.js';
import { lastChangeEpoch, repoRoot } from './source.js';

/**
 * The operators that ship an image: operators/<name>, charts/<name>-operator; and `combined`, all
 * of them in one process (operators/combined, the umbrella chart's `operators.image`, ADR 0044).
 */
export const operatorNames = ['keystone', 'placement', 'network-addons', 'sip', 'combined'] as const;
export type OperatorName = (typeof operatorNames)[number];

export function isOperatorName(name: string): name is OperatorName {
  return (operatorNames as readonly string[]).includes(name);
}

/** The bundle sits where it does in the package, so `new URL('../package.json', import.meta.url)` works. */
export const appDir = '/app';
export const bundlePath = `${appDir}/bundle/main.mjs`;

export interface OperatorImageSource {
  operator: OperatorName;
  /** `<registry>/<repository>:<tag>` as the chart's default values render it. */
  name: string;
  packageName: string;
  version: string;
  description: string;
  license: string;
  /** The chart's home: the source repository. */
  sourceUrl: string;
  /** operators/<name>/bundle/main.mjs (the nx `bundle` target). */
  bundle: string;
}

interface ImageValues {
  registry?: string;
  repository?: string;
  tag?: string;
}

interface ChartValues {
  image?: ImageValues;
  operators?: { image?: ImageValues };
}

/** The package, the chart and the image title of an operator's image. */
function imageHome(operator: OperatorName): { dir: string; chart: string; title: string } {
  return operator === 'combined'
    ? { dir: 'combined', chart: 'stackops', title: 'stackops-operators' }
    : { dir: operator, chart: `${operator}-operator`, title: `${operator}-operator` };
}

/**
 * Reads what the image is called from the chart — `image.registry`/`image.repository` in
 * values.yaml and the tag (`image.tag`, else `appVersion`), as the chart's image helper does —
 * and what it contains and says from the operator's package.json.
 */
export function operatorImageSource(operator: OperatorName, root: string = repoRoot()): OperatorImageSource {
  const home = imageHome(operator);
  const packageDir = join(root, 'operators', home.dir);
  const chartDir = join(root, 'charts', home.chart);
  const pkg = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as {
    name: string;
    version: string;
    description: string;
    license: string;
  };
  const chart = parse(readFileSync(join(chartDir, 'Chart.yaml'), 'utf8')) as {
    appVersion?: string;
    home?: string;
  };
  const values = parse(readFileSync(join(chartDir, 'values.yaml'), 'utf8')) as ChartValues;
  const key = operator === 'combined' ? 'operators.image' : 'image';
  const { registry, repository, tag } =
    (operator === 'combined' ? values.operators?.image : values.image) ?? {};
  if (!registry || !repository)
    throw new Error(`${chartDir}/values.yaml: ${key}.registry and ${key}.repository are required`);
  if (chart.appVersion !== pkg.version) {
    throw new Error(
      `${chartDir}/Chart.yaml appVersion ${chart.appVersion} differs from ${pkg.name} ${pkg.version}; run node tools/release/dist/cli.js`,
    );
  }
  if (!chart.home) throw new Error(`${chartDir}/Chart.yaml: home (the source repository) is required`);
  return {
    operator,
    name: `${registry}/${repository}:${tag || chart.appVersion}`,
    packageName: pkg.name,
    version: pkg.version,
    description: pkg.description,
    license: pkg.license,
    sourceUrl: chart.home,
    bundle: join(packageDir, 'bundle', 'main.mjs'),
  };
}

export interface OperatorImagesOptions extends BuilderOptions {
  /** Default: all four. */
  operators?: readonly OperatorName[];
}

export interface OperatorImages {
  /** Where `images.json` (this result) and the images' folders are. */
  outDir: string;
  base: NodeBase;
  /** The amd64 images (the charts' default: one platform, as a node imports it). */
  images: Array<BuiltImage & { operator: OperatorName }>;
  arm64Base: Arm64Base;
  arm64Images: Array<BuiltImage & { operator: OperatorName }>;
  /** Per operator, the linux/amd64 + linux/arm64 index (`<tag>@index`). */
  indexes: Array<BuiltIndex & { operator: OperatorName }>;
  durationMs: number;
}

/** The result of the last `buildOperatorImages` into `outDir`, or undefined if there is none. */
export function readOperatorImages(outDir: string = defaultOutDir()): OperatorImages | undefined {
  const file = join(outDir, 'images.json');
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as OperatorImages) : undefined;
}

/**
 * Builds the operators' images: the shared node base as the first layer, the operator's bundle
 * and a minimal package.json as the second. The bundles must exist (`nx run-many -t bundle`; the
 * package's `images` and `test` targets depend on it). Images whose inputs are unchanged are
 * reused from `outDir`.
 */
export async function buildOperatorImages(options: OperatorImagesOptions = {}): Promise<OperatorImages> {
  const started = Date.now();
  const root = repoRoot();
  const sources = (options.operators ?? operatorNames).map((o) => operatorImageSource(o, root));
  for (const s of sources) {
    if (!existsSync(s.bundle)) {
      throw new Error(`${s.bundle} is missing: run \`npx nx run ${s.packageName}:bundle\` (or make images)`);
    }
  }
  return withImageBuilder(options, async (builder) => {
    const progress = options.progress ?? ((line: string) => process.stderr.write(`${line}\n`));
    const base = await prepareNodeBase({
      root,
      workDir: builder.workDir,
      epoch: await lastChangeEpoch(root, nodeBaseSources, builder.source),
      progress,
    });
    const arm64Base = await prepareArm64Base({
      root,
      workDir: builder.workDir,
      epoch: await lastChangeEpoch(root, arm64BaseSources, builder.source),
      progress,
    });
    const images: OperatorImages['images'] = [];
    const arm64Images: OperatorImages['arm64Images'] = [];
    const indexes: OperatorImages['indexes'] = [];
    // The binary the base layer holds: the compile cache is built with it.
    const nodeBinary = nodeBinaryPath(root);
    for (const source of sources) {
      const app = join(builder.workDir, 'app', source.operator);
      stageApp(app, source, nodeBinary);
      const appLayer = { dir: app, description: `${source.packageName} ${source.version}: ${bundlePath}` };
      const config = imageConfig(source, builder.source);
      const built = await builder.build({
        name: source.name,
        layers: [{ tar: base.tar, description: base.description }, appLayer],
        config,
      });
      images.push({ ...built, operator: source.operator });
      const builtArm64 = await builder.build({
        name: source.name,
        layers: [{ tar: arm64Base.tar, description: arm64Base.description }, appLayer],
        config,
        platform: arm64.platform,
      });
      arm64Images.push({ ...builtArm64, operator: source.operator });
      const index = await writeImageIndex(
        `${imageDir(builder.outDir, parseImageName(source.name))}@index`,
        [built, builtArm64],
        builder.source.epoch,
      );
      indexes.push({ ...index, operator: source.operator });
    }
    const result: OperatorImages = {
      outDir: builder.outDir,
      base,
      images,
      arm64Base,
      arm64Images,
      indexes,
      durationMs: Date.now() - started,
    };
    writeFileSync(join(builder.outDir, 'images.json'), `${JSON.stringify(result, null, 2)}\n`);
    return result;
  });
}

/** Entrypoint, user and labels: the same for every platform of an operator. */
function imageConfig(source: OperatorImageSource, built: { epoch: number; revision: string }): ImageConfig {
  const created = new Date(built.epoch * 1000).toISOString().replace('.000Z', 'Z');
  return {
    // No V8 flags: the operators limit V8's tiers themselves once loaded (ADR 0056).
    entrypoint: [nodePath, bundlePath],
    user: `${nonroot.uid}:${nonroot.gid}`,
    workdir: appDir,
    env: { PATH: '/usr/local/bin:/usr/bin:/bin', NODE_ENV: 'production' },
    labels: {
      'org.opencontainers.image.title': imageHome(source.operator).title,
      'org.opencontainers.image.description': source.description,
      'org.opencontainers.image.version': source.version,
      'org.opencontainers.image.revision': built.revision,
      'org.opencontainers.image.created': created,
      'org.opencontainers.image.licenses': source.license,
      'org.opencontainers.image.source': source.sourceUrl,
    },
  };
}

/**
 * /app/bundle (main.mjs, the operator.mjs it starts, the chunks imported on demand in
 * bundle/chunks/, and the compile cache built for the image's node and user in
 * bundle/compile-cache/) and /app/package.json (name, version, licence: what the bundle reports).
 */
function stageApp(dir: string, source: OperatorImageSource, nodeBinary: string): void {
  rmSync(dir, { recursive: true, force: true });
  const bundleDir = join(dir, 'app', 'bundle');
  mkdirSync(bundleDir, { recursive: true });
  for (const file of ['main.mjs', 'operator.mjs'])
    copyFileSync(join(dirname(source.bundle), file), join(bundleDir, file));
  const chunks = join(dirname(source.bundle), 'chunks');
  if (existsSync(chunks)) cpSync(chunks, join(bundleDir, 'chunks'), { recursive: true });
  const { packageName: name, version, description, license } = source;
  writeFileSync(
    join(dir, 'app', 'package.json'),
    `${JSON.stringify({ name, version, description, license, type: 'module' }, null, 2)}\n`,
  );
  buildCompileCache(join(dir, 'app'), nodeBinary, nonroot.uid);
  chmodSync(dir, 0o755);
  for (const entry of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    const path = join(dir, entry);
    chmodSync(path, statSync(path).isDirectory() ? 0o755 : 0o644);
  }
}
