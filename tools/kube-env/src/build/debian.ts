import { createHash } from 'node:crypto';
import { createReadStream, existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { run } from '../util/run.js';

/**
 * Debian packages as the machine's apt sources offer them, fetched as .debs (never installed):
 * kube-env extracts Open vSwitch from them for its real nodes, and tools/images builds image
 * layers from them (tools/images imports kube-env, so the shared code lives here).
 */

/** A package as the machine's apt sources offer it now (its candidate version). */
export interface DebianPackage {
  name: string;
  version: string;
  architecture: string;
  /** Of the .deb, from the signed Packages index; checked on every download and cache hit. */
  sha256: string;
  /** The .deb in the download cache (set by `downloadPackages`). */
  deb?: string;
}

/** Splits `apt-cache show` / control-file text into paragraphs of fields. */
export function parseControl(text: string): Array<Map<string, string>> {
  const paragraphs: Array<Map<string, string>> = [];
  for (const block of text.split(/\n\s*\n/)) {
    const fields = new Map<string, string>();
    let last: string | undefined;
    for (const line of block.split('\n')) {
      if (/^\s/.test(line) && last !== undefined) {
        fields.set(last, `${fields.get(last)}\n${line}`);
      } else {
        const colon = line.indexOf(':');
        if (colon <= 0) continue;
        last = line.slice(0, colon);
        fields.set(last, line.slice(colon + 1).trim());
      }
    }
    if (fields.size > 0) paragraphs.push(fields);
  }
  return paragraphs;
}

const aptHelp =
  'apt cannot find it: run `apt-get update` (as root) so the package lists are current, and check that the machine has Debian sources';

async function aptCacheShow(names: readonly string[]): Promise<string> {
  const env = { ...process.env, LC_ALL: 'C' };
  return (await run(['apt-cache', 'show', '--no-all-versions', ...names], { env })).stdout;
}

function sha256File(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    createReadStream(path)
      .on('data', (chunk) => hash.update(chunk))
      .on('error', reject)
      .on('end', () => resolve(hash.digest('hex')));
  });
}

/**
 * Candidate version and .deb sha256 of each package, from the local package lists (no network).
 * When the lists lack a package and we are root, they are refreshed once with `apt-get update`.
 */
export async function resolvePackages(
  names: readonly string[],
  architecture: string,
  progress: (line: string) => void,
): Promise<DebianPackage[]> {
  let text: string;
  try {
    text = await aptCacheShow(names);
  } catch (error) {
    if (process.getuid?.() !== 0) throw new Error(`apt-cache show ${names.join(' ')}: ${aptHelp}\n${error}`);
    progress('apt-cache does not know every package; running apt-get update once');
    await run(['apt-get', 'update', '-qq']);
    text = await aptCacheShow(names);
  }
  const paragraphs = parseControl(text);
  return names.map((name) => {
    const p = paragraphs.find(
      (f) => f.get('Package') === name && [architecture, 'all'].includes(f.get('Architecture') ?? ''),
    );
    const version = p?.get('Version');
    const sha256 = p?.get('SHA256');
    if (!p || !version || !sha256) throw new Error(`Debian package ${name} (${architecture}): ${aptHelp}`);
    return { name, version, architecture: p.get('Architecture')!, sha256 };
  });
}

function debFileName(p: DebianPackage): string {
  return `${p.name}_${p.version.replaceAll(':', '%3a')}_${p.architecture}.deb`;
}

/**
 * The .debs into `cacheDir` with `apt-get download` (kept there: a later call with the same
 * versions downloads nothing). Each file must have the sha256 the package index gives.
 */
export async function downloadPackages(
  packages: readonly DebianPackage[],
  cacheDir: string,
  progress: (line: string) => void,
): Promise<DebianPackage[]> {
  mkdirSync(cacheDir, { recursive: true });
  const result = packages.map((p) => ({ ...p, deb: join(cacheDir, debFileName(p)) }));
  const missing: typeof result = [];
  for (const p of result) {
    if (existsSync(p.deb) && (await sha256File(p.deb)) === p.sha256) continue;
    rmSync(p.deb, { force: true });
    missing.push(p);
  }
  if (missing.length === 0) return result;

  progress(`apt-get download ${missing.map((p) => `${p.name}=${p.version}`).join(' ')}`);
  const tmp = join(cacheDir, `download-${process.pid}`);
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp);
  try {
    // As root, apt would drop to its _apt user, which cannot write into the cache folder.
    const sandbox = process.getuid?.() === 0 ? ['-o', 'APT::Sandbox::User=root'] : [];
    await run(['apt-get', 'download', '-qq', ...sandbox, ...missing.map((p) => `${p.name}=${p.version}`)], {
      cwd: tmp,
    }).catch((error: Error) => {
      throw new Error(`apt-get download failed; ${aptHelp}\n${error.message}`);
    });
    const downloaded = new Map<string, string>();
    for (const file of readdirSync(tmp)) downloaded.set(await sha256File(join(tmp, file)), join(tmp, file));
    for (const p of missing) {
      const file = downloaded.get(p.sha256);
      if (file === undefined) {
        throw new Error(`apt-get download gave no file with sha256 ${p.sha256} for ${p.name} ${p.version}`);
      }
      renameSync(file, p.deb);
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  return result;
}

export async function extractPackage(deb: string, dir: string): Promise<void> {
  mkdirSync(dir, { recursive: true });
  await run(['dpkg-deb', '--extract', deb, dir]);
}
