import { execFile } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { promisify } from 'node:util';
import { stackopsCacheDir } from '@stackops/kube-env';

const execFileP = promisify(execFile);
const repoRoot = resolve(import.meta.dirname, '../../../..');

/** The pin (ADR 0038): the previous release's commit, and the operand rollouts this commit declares on upgrade from it. */
interface Pin {
  commit: string;
  /** Operand objects `<Kind> <namespace>/<name>` whose rendered content changes on upgrade (a workload rolls), each with the changeset that says so. */
  expectedRollouts: { object: string; changeset: string }[];
}

export const readPin = (): Pin =>
  JSON.parse(readFileSync(join(import.meta.dirname, 'previous-release.json'), 'utf8')) as Pin;

interface PreviousImage {
  operator: string;
  /** Its name on the node: the release's own tag plus `-<commit>`, so it lives beside this commit's image of the same version. */
  name: string;
  tag: string;
  configDigest: string;
  layout: string;
}

export interface PreviousRelease {
  commit: string;
  /** The umbrella chart as the release shipped it, dependencies packaged. */
  chart: string;
  /** Each operator chart's crds/ folder. */
  crdDirs: string[];
  images: PreviousImage[];
  /** How long the cold build took (seconds); 0 when this run found it in the cache. */
  builtSeconds: number;
}

const sh = async (script: string, cwd: string, env: Record<string, string> = {}) => {
  try {
    return (
      await execFileP('bash', ['-eo', 'pipefail', '-c', script], {
        cwd,
        env: { ...process.env, ...env },
        maxBuffer: 256 * 1024 * 1024,
        timeout: 1_800_000,
      })
    ).stdout;
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    throw new Error(
      `${script} (in ${cwd}) failed:\n${e.stderr || e.message}\n${(e.stdout ?? '').slice(-4000)}`,
    );
  }
};

/** Every node_modules folder of the checkout (the root's and the workspaces' own), relative to it. */
function nodeModulesDirs(root: string, dir = '.', depth = 0): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name.startsWith('.')) continue;
    const rel = join(dir, entry.name);
    if (entry.name === 'node_modules') out.push(rel);
    else if (depth < 2 && !['build', 'dist'].includes(entry.name))
      out.push(...nodeModulesDirs(root, rel, depth + 1));
  }
  return out;
}

/**
 * The previous release's images and charts, built once per commit into
 * `~/.cache/stackops/upgrade/<commit>/` (XDG_CACHE_HOME or STACKOPS_UPGRADE_CACHE move it) and reused afterwards.
 * The build is the release's own: the pinned commit's tree (`git archive`), its own tools, `nx run
 * @stackops/images:images` as `make images` runs it, with SOURCE_REVISION and SOURCE_DATE_EPOCH
 * standing in for the missing .git.
 */
export async function previousRelease(
  pin: Pin,
  helm: string,
  progress: (line: string) => void = () => {},
): Promise<PreviousRelease> {
  const cache = join(upgradeCache(), pin.commit);
  const manifest = join(cache, 'release.json');
  if (existsSync(manifest)) {
    const release = JSON.parse(readFileSync(manifest, 'utf8')) as PreviousRelease;
    return { ...release, builtSeconds: 0 };
  }
  const t0 = Date.now();
  const work = `${cache}.build`;
  const src = join(work, 'src');
  rmSync(work, { recursive: true, force: true });
  mkdirSync(src, { recursive: true });
  progress(`building the previous release ${pin.commit} in ${work}`);
  await sh(`git archive --format=tar ${pin.commit} | tar -x -C ${JSON.stringify(src)}`, repoRoot);
  // Same lock file: this checkout's installed packages, hard-linked (the workspace links are
  // relative, so they point into the copy). Otherwise the release's own `npm ci`.
  const sameLock = await sh(
    `git diff --quiet ${pin.commit} -- package-lock.json && echo same || true`,
    repoRoot,
  );
  if (sameLock.trim() === 'same') {
    for (const dir of nodeModulesDirs(repoRoot))
      if (existsSync(join(src, dirname(dir))))
        await sh(`cp -al ${JSON.stringify(join(repoRoot, dir))} ${JSON.stringify(join(src, dir))}`, repoRoot);
  } else await sh('npm ci --no-audit --no-fund --loglevel=error', src);
  const epoch = (await sh(`git show -s --format=%ct ${pin.commit}`, repoRoot)).trim();
  await sh('npx nx run @stackops/images:images --outputStyle=static', src, {
    NX_DAEMON: 'false',
    NX_NO_CLOUD: 'true',
    NX_TUI: 'false',
    SOURCE_REVISION: pin.commit,
    SOURCE_DATE_EPOCH: epoch,
    PATH: `${join(src, 'node_modules/.bin')}:${process.env['PATH']}`,
  });
  await sh(`${JSON.stringify(helm)} dependency build charts/stackops --skip-refresh`, src);

  const out = join(work, 'out');
  mkdirSync(out, { recursive: true });
  cpSync(join(src, 'charts'), join(out, 'charts'), { recursive: true });
  const built = JSON.parse(readFileSync(join(src, 'build/images/images.json'), 'utf8')) as {
    images: { operator: string; name: string; ociLayout: string }[];
  };
  const suffix = pin.commit.slice(0, 12);
  const images: PreviousImage[] = [];
  for (const image of built.images) {
    const layout = join(out, 'images', image.operator);
    cpSync(image.ociLayout, layout, { recursive: true });
    const tag = `${image.name.slice(image.name.lastIndexOf(':') + 1)}-${suffix}`;
    const name = `${image.name.slice(0, image.name.lastIndexOf(':'))}:${tag}`;
    const indexFile = join(layout, 'index.json');
    const index = JSON.parse(readFileSync(indexFile, 'utf8')) as {
      manifests: { digest: string; annotations?: Record<string, string> }[];
    };
    const entry = index.manifests[0];
    if (!entry) throw new Error(`${indexFile} names no image`);
    entry.annotations = {
      ...entry.annotations,
      'io.containerd.image.name': name,
      'org.opencontainers.image.ref.name': tag,
    };
    writeFileSync(indexFile, JSON.stringify(index));
    const m = JSON.parse(readFileSync(join(layout, 'blobs', ...entry.digest.split(':')), 'utf8')) as {
      config: { digest: string };
    };
    images.push({
      operator: image.operator,
      name,
      tag,
      configDigest: m.config.digest,
      layout: relative(out, layout),
    });
  }
  const release: PreviousRelease = {
    commit: pin.commit,
    chart: 'charts/stackops',
    crdDirs: readdirSync(join(out, 'charts'))
      .filter((c) => existsSync(join(out, 'charts', c, 'crds')))
      .map((c) => `charts/${c}/crds`),
    images,
    builtSeconds: Math.round((Date.now() - t0) / 1000),
  };
  writeFileSync(join(out, 'release.json'), JSON.stringify(release, null, 2));
  rmSync(cache, { recursive: true, force: true });
  renameSync(out, cache);
  rmSync(work, { recursive: true, force: true });
  progress(`previous release ${pin.commit} built in ${release.builtSeconds}s`);
  return release;
}

/** Paths in a PreviousRelease are relative to its cache folder. */
export const inCache = (pin: Pin, path: string) => join(upgradeCache(), pin.commit, path);

/** `STACKOPS_UPGRADE_CACHE`, else `${XDG_CACHE_HOME:-~/.cache}/stackops/upgrade`, as the other caches. */
const upgradeCache = (): string =>
  process.env['STACKOPS_UPGRADE_CACHE'] ?? join(stackopsCacheDir(), 'upgrade');
