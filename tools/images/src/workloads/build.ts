import { spawn } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { stackopsCacheDir } from '@stackops/kube-env';
import { downloadPackages, extractPackage, resolvePackages } from '@stackops/kube-env/debian';
import { withBuildLock } from '../util/build-lock.js';
import { sha256Hex } from '../util/hash.js';
import {
  type LayerName,
  layerNames,
  layers,
  PIP_VERSION,
  toolingDigest,
  treeDigest,
  WORKLOADS_EPOCH,
  workloadsDir,
} from './layers.js';

/** One built layer, cached under `dir`. */
export interface BuiltLayer {
  name: LayerName;
  /** Hash of everything the layer is made from (recipe, scripts, the layers below, tools). */
  key: string;
  dir: string;
  /** The layer's files (overlay upper directory; overlay whiteouts kept): a lower dir for chroots. */
  tree: string;
  /** The OCI layer: uncompressed, deterministic tar. */
  tar: string;
  tarSize: number;
  /** Debian packages and versions of the root after this layer (base + the layers below + this one). */
  debs: Record<string, string>;
  /** Python distributions this layer installed (the python layer only). */
  wheels: Record<string, string>;
  /** Seconds it took to build (0 when it came from the cache). */
  seconds: number;
  cached: boolean;
}

export interface BuildOptions {
  /** Default: `${XDG_CACHE_HOME:-~/.cache}/stackops/images/workloads`. */
  cacheDir?: string;
  /** Rebuild the layers even when the cache has them. */
  force?: boolean;
  progress?: (line: string) => void;
}

export function defaultWorkloadsCacheDir(): string {
  return join(stackopsCacheDir(), 'images', 'workloads');
}

/** Runs a program with its output going to `log`; a failure names the log and quotes its end. */
function run(argv: readonly string[], log: string, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const [program, ...args] = argv;
  const fd = openSync(log, 'a');
  return new Promise<void>((resolve, reject) => {
    const child = spawn(program!, args, { env, stdio: ['ignore', fd, fd] });
    closeSync(fd);
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) return resolve();
      const tail = readFileSync(log, 'utf8').trimEnd().split('\n').slice(-30).join('\n');
      reject(new Error(`${argv.join(' ')} exited with ${code} (log: ${log})\n${tail}`));
    });
  });
}

function readTable(file: string): Record<string, string> {
  if (!existsSync(file)) return {};
  const out: Record<string, string> = {};
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const [name, version] = line.split('\t');
    if (name && version) out[name] = version;
  }
  return out;
}

/** mmdebstrap from Debian's .deb, unpacked into the cache (nothing is installed on the machine). */
async function mmdebstrap(
  cacheDir: string,
  progress: (line: string) => void,
): Promise<{ dir: string; version: string }> {
  const [pkg] = await resolvePackages(['mmdebstrap'], 'all', progress);
  const dir = join(cacheDir, 'tools', `mmdebstrap-${pkg!.version}`);
  if (!existsSync(join(dir, 'usr', 'bin', 'mmdebstrap'))) {
    const [deb] = await downloadPackages([pkg!], join(cacheDir, 'tools', 'debs'), progress);
    rmSync(dir, { recursive: true, force: true });
    await extractPackage(deb!.deb!, `${dir}.tmp`);
    renameSync(`${dir}.tmp`, dir);
  }
  return { dir, version: pkg!.version };
}

/** pip's wheel from PyPI, checked against the sha256 PyPI publishes for it. */
async function pipWheel(cacheDir: string, progress: (line: string) => void): Promise<string> {
  const dir = join(cacheDir, 'tools');
  const existing =
    existsSync(dir) &&
    readdirSync(dir).find((f) => f.startsWith(`pip-${PIP_VERSION}-`) && f.endsWith('.whl'));
  if (existing) return join(dir, existing);
  progress(`images: downloading pip ${PIP_VERSION} from PyPI`);
  const response = await fetch('https://pypi.org/pypi/pip/json');
  if (!response.ok) throw new Error(`PyPI answered ${response.status} for pip's release list`);
  const meta = (await response.json()) as {
    releases: Record<
      string,
      { packagetype: string; filename: string; url: string; digests: { sha256: string } }[]
    >;
  };
  const wheel = meta.releases[PIP_VERSION]?.find((u) => u.packagetype === 'bdist_wheel');
  if (!wheel) throw new Error(`PyPI lists no wheel for pip ${PIP_VERSION}`);
  // PyPI's mirrors may give file URLs relative to the JSON's
  const download = await fetch(new URL(wheel.url, response.url));
  if (!download.ok) throw new Error(`PyPI answered ${download.status} for ${wheel.filename}`);
  const body = Buffer.from(await download.arrayBuffer());
  if (sha256Hex(body) !== wheel.digests.sha256)
    throw new Error(`${wheel.filename}: sha256 differs from PyPI's`);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, wheel.filename);
  writeFileSync(file, body);
  return file;
}

interface Plan {
  keys: Record<LayerName, string>;
  /** The wheelhouse key of each layer that installs wheels (its own requirements). */
  wheelhouseKeys: Partial<Record<LayerName, string>>;
}

/** Every layer's key: its recipe, the scripts, the keys of the layers below, the tools' versions. */
function plan(dir: string, mmdebstrapVersion: string): Plan {
  const tooling = toolingDigest(dir);
  const keys = {} as Record<LayerName, string>;
  const wheelhouseKeys: Partial<Record<LayerName, string>> = {};
  for (const name of layerNames) {
    const def = layers[name];
    const below = def.below.map((b) => keys[b]);
    const wheelhouseKey = def.wheels
      ? sha256Hex(
          JSON.stringify({
            base: keys.base,
            pip: PIP_VERSION,
            script: treeDigest(join(dir, 'build-wheelhouse.sh')),
            // only what pip resolves: a recipe change does not download the wheels again
            requirements: ['requirements.txt', 'constraints.txt'].map((f) =>
              treeDigest(join(dir, 'layers', name, f)),
            ),
          }),
        )
      : undefined;
    if (wheelhouseKey) wheelhouseKeys[name] = wheelhouseKey;
    keys[name] = sha256Hex(
      JSON.stringify({
        name,
        recipe: treeDigest(join(dir, 'layers', name)),
        tooling,
        epoch: WORKLOADS_EPOCH,
        below,
        ...(name === 'base' ? { mmdebstrap: mmdebstrapVersion } : {}),
        ...(wheelhouseKey ? { wheelhouse: wheelhouseKey } : {}),
      }),
    );
  }
  return { keys, wheelhouseKeys };
}

function loadLayer(name: LayerName, key: string, dir: string): BuiltLayer | undefined {
  const record = join(dir, 'layer.json');
  if (!existsSync(record)) return undefined;
  const layer = JSON.parse(readFileSync(record, 'utf8')) as BuiltLayer;
  if (layer.key !== key || !existsSync(layer.tree) || !existsSync(layer.tar)) return undefined;
  return { ...layer, name, cached: true };
}

/**
 * Builds (or takes from the cache) every layer of the workload images, as root: mmdebstrap and
 * chroots on overlays. Keyed by recipe: a warm cache costs only the hashing of the recipes.
 */
export async function buildWorkloadLayers(
  options: BuildOptions = {},
): Promise<Record<LayerName, BuiltLayer>> {
  const progress = options.progress ?? ((line: string) => process.stderr.write(`${line}\n`));
  const cacheDir = options.cacheDir ?? defaultWorkloadsCacheDir();
  if (process.getuid?.() !== 0) {
    throw new Error('the workload images are built with mmdebstrap, overlay mounts and chroot: run as root');
  }
  mkdirSync(cacheDir, { recursive: true });
  return withBuildLock(
    cacheDir,
    (pid) => progress(`images: another build (pid ${pid}) is writing ${cacheDir}; waiting for it`),
    async () => {
      const dir = workloadsDir();
      const mm = await mmdebstrap(cacheDir, progress);
      const { keys, wheelhouseKeys } = plan(dir, mm.version);
      const built = {} as Record<LayerName, BuiltLayer>;
      const env = { ...process.env, SOURCE_DATE_EPOCH: String(WORKLOADS_EPOCH), LC_ALL: 'C' };
      for (const name of layerNames) {
        const key = keys[name];
        const layerDir = join(cacheDir, 'layers', `${name}-${key.slice(0, 16)}`);
        const cached = options.force ? undefined : loadLayer(name, key, layerDir);
        if (cached) {
          built[name] = cached;
          continue;
        }
        const started = Date.now();
        progress(`images: building layer ${name}`);
        const tmp = `${layerDir}.tmp-${process.pid}`;
        rmSync(tmp, { recursive: true, force: true });
        mkdirSync(tmp, { recursive: true });
        const log = join(tmp, 'build.log');
        const below = layers[name].below.map((b) => built[b].tree);
        const args = ['bash', join(dir, 'build-layer.sh'), name, join(tmp, 'out')];
        if (name === 'base') args.push(mm.dir);
        else args.push(...below);
        const wheelhouseKey = wheelhouseKeys[name];
        if (wheelhouseKey) {
          const wheelhouse = join(cacheDir, `wheelhouse-${name}-${wheelhouseKey.slice(0, 16)}`);
          if (!existsSync(join(wheelhouse, '.complete'))) {
            progress(`images: building the Python wheelhouse of ${name}`);
            const pip = await pipWheel(cacheDir, progress);
            await run(
              ['bash', join(dir, 'build-wheelhouse.sh'), `${wheelhouse}.tmp`, built.base.tree, pip, name],
              log,
              env,
            );
            rmSync(wheelhouse, { recursive: true, force: true });
            renameSync(`${wheelhouse}.tmp`, wheelhouse);
            closeSync(openSync(join(wheelhouse, '.complete'), 'w'));
          }
          args.push('--wheels', wheelhouse);
        }
        await run(args, log, env);
        const tar = join(tmp, 'layer.tar');
        await run(
          ['python3', join(dir, 'tar-layer.py'), join(tmp, 'out', 'tree'), tar, String(WORKLOADS_EPOCH)],
          log,
          env,
        );
        // Final paths: the record names where the layer will live once moved into place.
        const layer: BuiltLayer = {
          name,
          key,
          dir: layerDir,
          tree: join(layerDir, 'out', 'tree'),
          tar: join(layerDir, 'layer.tar'),
          tarSize: 0,
          debs: readTable(join(tmp, 'out', 'debs.txt')),
          wheels: readTable(join(tmp, 'out', 'wheels.txt')),
          seconds: Math.round((Date.now() - started) / 100) / 10,
          cached: false,
        };
        layer.tarSize = statSync(tar).size;
        writeFileSync(
          join(tmp, 'layer.json'),
          `${JSON.stringify({ ...layer, cached: undefined }, null, 2)}\n`,
        );
        // Older builds of this layer go: a layer tree is hundreds of MB.
        const layersDir = join(cacheDir, 'layers');
        for (const old of readdirSync(layersDir)) {
          if (old.startsWith(`${name}-`) && !old.includes('.tmp-') && join(layersDir, old) !== layerDir) {
            rmSync(join(layersDir, old), { recursive: true, force: true });
          }
        }
        rmSync(layerDir, { recursive: true, force: true });
        renameSync(tmp, layerDir);
        progress(`images: layer ${name} built in ${layer.seconds}s (${(layer.tarSize / 1e6).toFixed(0)} MB)`);
        built[name] = layer;
      }
      return built;
    },
  );
}
